import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Per-process CPU time and memory from /proc (Linux). On a 2-core machine shared by the load
 * generator, the upstream and the server under test, CPU time per request of the server's own
 * process is the fairest figure: it does not depend on who won the cores.
 */

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User plus system CPU time in a /proc stat line (a process's or a thread's), in milliseconds. */
function statCpuMs(stat: string): number {
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / CLOCK_TICKS;
}

/**
 * A process and its child processes (a gateway's workers, GATEWAY_WORKERS above 1; none for one
 * worker, the forwarder or the mock), from /proc. A child that has ended is not counted.
 */
export function processTree(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    // No children file (the process is gone): the process alone.
  }
  return [pid, ...children.flatMap(processTree)];
}

/** User plus system CPU time of a process and its child processes so far, in milliseconds. */
export function cpuMs(pid: number): number {
  let total = 0;
  for (const member of processTree(pid)) {
    try {
      total += statCpuMs(readFileSync(`/proc/${member}/stat`, 'utf8'));
    } catch {
      // A worker that ended between the listing and the read.
    }
  }
  return total;
}

/**
 * A Node process's CPU time so far by kind of thread, in milliseconds: the main thread (the
 * event loop), V8's helpers (parallel and concurrent garbage collection, background compiling),
 * worker threads (the gateway's ledger writer) and libuv's pool (file writes: the log).
 */
export interface ThreadCpu {
  main: number;
  v8: number;
  workers: number;
  libuv: number;
  other: number;
}

export const THREAD_KINDS = ['main', 'v8', 'workers', 'libuv', 'other'] as const;

/** By the names Node 24 gives its threads (`comm` in /proc: V8Worker, WorkerThread, libuv-worker…). */
function threadKind(name: string): keyof ThreadCpu {
  if (name.startsWith('V8') || name === 'DelayedTaskSche') return 'v8';
  if (name === 'WorkerThread') return 'workers';
  if (name.startsWith('libuv')) return 'libuv';
  return 'other';
}

/**
 * CPU time by thread name (`main` for the event loop's), of the threads alive now (a thread that
 * has ended is not counted), summed over threads of the same name.
 */
export function cpuMsByThreadName(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // The thread ended between the listing and the read.
    }
    const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    byName.set(name, (byName.get(name) ?? 0) + statCpuMs(stat));
  }
  return byName;
}

/** CPU time by kind of thread, of the threads alive now. */
export function cpuMsByThread(pid: number): ThreadCpu {
  const cpu: ThreadCpu = { main: 0, v8: 0, workers: 0, libuv: 0, other: 0 };
  for (const [name, ms] of cpuMsByThreadName(pid)) cpu[name === 'main' ? 'main' : threadKind(name)] += ms;
  return cpu;
}

export interface Memory {
  /** Resident set size now, MiB. */
  rssMb: number;
  /** Peak resident set size since the process started (VmHWM), MiB. */
  peakRssMb: number;
}

/** A process's memory, with its child processes' added (a gateway's workers: the whole instance). */
export function memory(pid: number): Memory {
  const total = { rssMb: 0, peakRssMb: 0 };
  for (const member of processTree(pid)) {
    const status = readFileSync(`/proc/${member}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    total.rssMb += kb('VmRSS') / 1024;
    total.peakRssMb += kb('VmHWM') / 1024;
  }
  return total;
}

/** Samples a process's RSS while a run goes on; `stop()` gives the highest reading. */
export function sampleRss(pid: number, everyMs = 100): { stop(): number } {
  let highest = 0;
  const read = () => {
    try {
      highest = Math.max(highest, memory(pid).rssMb);
    } catch {
      // The process is gone; the last reading stands.
    }
  };
  read();
  const timer = setInterval(read, everyMs);
  return {
    stop() {
      clearInterval(timer);
      read();
      return highest;
    },
  };
}
