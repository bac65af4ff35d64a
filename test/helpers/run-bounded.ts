import { spawn } from 'node:child_process';

/** What a finished (or stopped) command left behind. */
export interface BoundedRun {
  /** The exit code; null when a signal ended it (the time limit's SIGKILL included). */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when the time limit stopped it. */
  timedOut: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
}

export interface BoundedCommand {
  file: string;
  args: readonly string[];
  cwd: string;
  /** The whole environment: nothing of the test process's own is passed unless given here. */
  env: Record<string, string>;
  timeoutMs: number;
  /** Written to stdin, which is then closed; stdin is /dev/null without it. */
  input?: string;
}

/** Output kept per stream: a client that loops printing cannot fill the test's memory. */
const OUTPUT_LIMIT = 4 * 1024 * 1024;

/**
 * Runs a command to its end within `timeoutMs`, in a process group of its own: at the limit the
 * whole group (the client and any shell or helper it started) gets SIGKILL, so a client that hangs
 * waiting for a network that is not there fails the test instead of outliving it.
 */
export function runBounded(command: BoundedCommand): Promise<BoundedRun> {
  const started = performance.now();
  const child = spawn(command.file, command.args, {
    cwd: command.cwd,
    env: command.env,
    stdio: [command.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  if (command.input !== undefined) child.stdin?.end(command.input);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid);
  }, command.timeoutMs);
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      // Helpers the client left running in its group go with it.
      killGroup(child.pid);
      resolve({
        code,
        signal,
        timedOut,
        stdout: stdout.text(),
        stderr: stderr.text(),
        durationMs: Math.round(performance.now() - started),
      });
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}

function collect(stream: NodeJS.ReadableStream | null): { text(): string } {
  const chunks: Buffer[] = [];
  let size = 0;
  stream?.on('data', (chunk: Buffer) => {
    if (size >= OUTPUT_LIMIT) return;
    chunks.push(chunk.subarray(0, OUTPUT_LIMIT - size));
    size += chunk.length;
  });
  return { text: () => Buffer.concat(chunks).toString('utf8') };
}
