import type { FastifyInstance } from 'fastify';

/**
 * Event-loop stalls as this process causes them. On a busy machine (the test suite runs two
 * files at once on two cores shared with other work) the process is also descheduled now and
 * then, which delays a timer just as a stall does but is no request's doing. So each wait is
 * also measured in CPU time of the main thread (process.threadCpuUsage): a stall burns it, a
 * descheduled process does not. The smaller of the two is the stall the code caused.
 */
function mainThreadCpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

export interface ProbeResult {
  /** Longest a GET /health took, counted from when it was due (wall clock). */
  maxHealthMs: number;
  /** The same wait counted as the main thread's CPU time spent meanwhile: what the code cost. */
  maxHealthCpuMs: number;
  /** Health requests answered while the probe ran. */
  answered: number;
}

const PROBE_EVERY_MS = 5;

/**
 * Sends GET /health every few milliseconds through `inject` (same process, same event loop) and
 * reports the worst latency from each request's due time. A handler that blocks the loop for
 * 300 ms shows up as a ~300 ms health answer, which is what another client would see.
 */
export function probeHealth(app: FastifyInstance): { stop(): Promise<ProbeResult> } {
  let maxHealthMs = 0;
  let maxHealthCpuMs = 0;
  let answered = 0;
  const pending = new Set<Promise<unknown>>();
  let due = performance.now() + PROBE_EVERY_MS;
  // CPU time at the previous tick: the closest reading to a late tick's due time.
  let cpuAtLastTick = mainThreadCpuMs();
  const timer = setInterval(() => {
    const dueAt = due;
    const cpuAtDue = cpuAtLastTick;
    cpuAtLastTick = mainThreadCpuMs();
    due = Math.max(due + PROBE_EVERY_MS, performance.now());
    const request = app.inject({ method: 'GET', url: '/health' }).then(() => {
      const wall = performance.now() - dueAt;
      maxHealthMs = Math.max(maxHealthMs, wall);
      maxHealthCpuMs = Math.max(maxHealthCpuMs, Math.min(wall, mainThreadCpuMs() - cpuAtDue));
      answered++;
    });
    pending.add(request);
    void request.finally(() => pending.delete(request));
  }, PROBE_EVERY_MS);
  return {
    async stop() {
      // Let one more tick run: a tick delayed by a blocked loop fires only after the blocking
      // request's own continuation, so stopping at once would miss exactly the stall.
      await new Promise((resolve) => setTimeout(resolve, 3 * PROBE_EVERY_MS));
      clearInterval(timer);
      await Promise.all(pending);
      return { maxHealthMs, maxHealthCpuMs, answered };
    },
  };
}

export interface LoopStall<T> {
  value: T;
  /** Longest gap between two 1 ms timer ticks, beyond the 1 ms (wall clock). */
  maxStallMs: number;
  /** The same gaps counted in the main thread's CPU time: what the code itself held the loop. */
  maxStallCpuMs: number;
  elapsedMs: number;
}

/** Worst event-loop lateness of a 1 ms timer while `work` runs: for tests without a server. */
export async function measureLoopStall<T>(work: () => Promise<T>): Promise<LoopStall<T>> {
  let maxStallMs = 0;
  let maxStallCpuMs = 0;
  let last = performance.now();
  let lastCpu = mainThreadCpuMs();
  const tick = () => {
    const now = performance.now();
    const cpu = mainThreadCpuMs();
    const gap = now - last - 1;
    maxStallMs = Math.max(maxStallMs, gap);
    maxStallCpuMs = Math.max(maxStallCpuMs, Math.min(gap, cpu - lastCpu));
    last = now;
    lastCpu = cpu;
  };
  const timer = setInterval(tick, 1);
  const start = performance.now();
  try {
    const value = await work();
    const elapsedMs = performance.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 5));
    tick();
    return { value, maxStallMs, maxStallCpuMs, elapsedMs };
  } finally {
    clearInterval(timer);
  }
}
