import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

export interface RunningServer {
  child: ChildProcess;
  gatewayPort: number | undefined;
  sitePort: number | undefined;
  /** Every line written to stdout and stderr so far. */
  output: string[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const ROOT = new URL('../../', import.meta.url);

/**
 * How long a server may take to say it listens. Generous: `npm start` builds dist/ first, which
 * took over 20 s on this 2-core machine while other test files ran.
 */
const START_TIMEOUT_MS = 45_000;

/**
 * Starts `node src/main.ts` (or `command`) as a user would, and waits until every requested surface
 * listens. It runs in a process group of its own and `stop` signals the whole group, so a command
 * that starts node through other processes (`npm start`: npm, a shell, node) stops as one.
 */
export async function spawnServer(
  env: Record<string, string>,
  surfaces = 2,
  command: string[] = [process.execPath, 'src/main.ts'],
): Promise<RunningServer> {
  const [file, ...args] = command as [string, ...string[]];
  const child = spawn(file, args, {
    cwd: ROOT,
    // One worker unless a test asks for more (GATEWAY_WORKERS): the suite's servers are single
    // processes, as they were before workers, and the machine's CPUs do not change what they test.
    env: {
      PATH: process.env.PATH ?? '',
      GATEWAY_PORT: '0',
      SITE_PORT: '0',
      HOST: '127.0.0.1',
      GATEWAY_WORKERS: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output: string[] = [];
  const server: RunningServer = {
    child,
    gatewayPort: undefined,
    sitePort: undefined,
    output,
    async stop(signal = 'SIGTERM') {
      // A child a signal ended has no exit code, only its signal.
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      process.kill(-(child.pid as number), signal);
      const [code] = await once(child, 'exit');
      return code as number | null;
    },
  };
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => output.push(line));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  await new Promise<void>((resolve, reject) => {
    let listening = 0;
    const timer = setTimeout(() => {
      // A server that never said it listens is still running: stop its group, or it outlives the test run.
      process.kill(-(child.pid as number), 'SIGKILL');
      reject(new Error(`server did not start:\n${output.join('\n')}`));
    }, START_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output.join('\n')}`));
    });
    lines.on('line', (line) => {
      output.push(line);
      if (!line.startsWith('{') || !line.includes('listening')) return;
      const entry = JSON.parse(line) as { surface?: string; port?: number };
      if (entry.surface === 'gateway') server.gatewayPort = entry.port;
      if (entry.surface === 'site') server.sitePort = entry.port;
      if (entry.surface !== undefined && ++listening === surfaces) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return server;
}

/** Runs a command to completion and returns its exit code and output. */
export async function runNode(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const [code] = await once(child, 'exit');
  return { code: code as number | null, stdout, stderr };
}
