import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The benchmark's servers, each in its own process so CPU and memory are counted per server. */

export const ROOT = new URL('../', import.meta.url);
const NODE = process.execPath;

export interface Server {
  name: string;
  child: ChildProcess;
  pid: number;
  port: number;
  stop(): Promise<void>;
}

function stopper(child: ChildProcess): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
}

/**
 * The thin forwarder (bench/forwarder.ts) in front of `upstream`: every bench's floor, a proxy
 * that copies bytes unread. `nodeArgs` and `env` as startHelper's (a run on the gateway's flags).
 */
export function startForwarder(
  upstream: Server,
  name = 'forwarder',
  nodeArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<Server> {
  return startHelper(
    name,
    'bench/forwarder.ts',
    [`--upstream=http://127.0.0.1:${upstream.port}`],
    nodeArgs,
    env,
  );
}

/**
 * Starts a bench helper (`bench/<script>`) that prints `{"port": n}` once it listens; `nodeArgs`
 * go before the script (V8 flags), `env` is added to this process's environment.
 */
export async function startHelper(
  name: string,
  script: string,
  args: string[],
  nodeArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<Server> {
  const child = spawn(NODE, [...nodeArgs, script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const [line] = (await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(() => {
      throw new Error(`${name} exited before listening`);
    }),
  ])) as [string];
  lines.close();
  // Whatever it prints later must not fill the pipe and stall it.
  child.stdout?.resume();
  const { port } = JSON.parse(line) as { port: number };
  return { name, child, pid: child.pid as number, port, stop: stopper(child) };
}

export async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  probe.close();
  await once(probe, 'close');
  return port;
}

export interface GatewayOptions {
  env: Record<string, string>;
  /** The gateway's log lines (stdout and stderr) go to this file, as in production. */
  logFile: string;
  /** Extra node flags, e.g. --cpu-prof or --import of a bench-only preload. */
  nodeArgs?: string[];
}

export interface StartCommand {
  /** Variables the start script sets before `node` (the malloc setting), defaults resolved. */
  env: Record<string, string>;
  /** The node flags before the entry point (V8 heap settings). */
  nodeArgs: string[];
  /** The script node runs (`dist/main.js`; `src/main.ts` in revisions before the build step). */
  entry: string;
}

interface PackageScripts {
  scripts: { start: string; prestart?: string };
}

function packageScripts(root: URL): PackageScripts['scripts'] {
  return (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as PackageScripts).scripts;
}

/**
 * How `npm start` of the checkout at `root` starts the gateway, read from its package.json so the
 * benchmark measures it exactly as it is started: `NAME=${NAME:-default} … [exec] node <flags> <entry>`.
 */
export function startCommand(root: URL = ROOT): StartCommand {
  const start = packageScripts(root).start;
  const words = start.split(/\s+/);
  const env: Record<string, string> = {};
  while (words[0] !== undefined && words[0] !== 'node') {
    // `exec node …`: the script's shell becomes node (npm passes signals to it, docs/operations.md).
    if (words[0] === 'exec') {
      words.shift();
      continue;
    }
    const match = /^([A-Z_]+)=(?:\$\{\1:-(.*)\}|(.*))$/.exec(words.shift() as string);
    if (match === null) throw new Error(`unexpected start script: ${start}`);
    env[match[1] as string] = match[2] ?? match[3] ?? '';
  }
  const entry = words.at(-1);
  if (words[0] !== 'node' || entry === undefined || !/\.(js|ts)$/.test(entry))
    throw new Error(`unexpected start script: ${start}`);
  return { env, nodeArgs: words.slice(1, -1), entry };
}

/** PATH as npm sets it for a script of the checkout at `root`: its node_modules/.bin first (Node 24). */
function scriptPath(root: URL): string {
  return `${fileURLToPath(new URL('node_modules/.bin', root))}:${process.env['PATH'] ?? ''}`;
}

const prepared = new Set<string>();
/** What `npm start` runs first (`prestart`: the build), once per checkout and benchmark process. */
export function runPrestart(root: URL = ROOT): void {
  const prestart = packageScripts(root).prestart;
  if (prepared.has(root.href) || prestart === undefined) return;
  execSync(prestart, { cwd: root, env: { ...process.env, PATH: scriptPath(root) }, stdio: 'inherit' });
  prepared.add(root.href);
}

/**
 * The gateway as `npm start` runs it (the build, then `dist/main.js`), waiting until GET /health
 * answers. `root` is another checkout to run instead of this one (`--baseline`).
 */
export async function startGateway(options: GatewayOptions & { root?: URL }): Promise<Server> {
  const root = options.root ?? ROOT;
  runPrestart(root);
  const start = startCommand(root);
  const port = Number(options.env['GATEWAY_PORT']);
  const log = openSync(options.logFile, 'a');
  const child = spawn(NODE, [...start.nodeArgs, ...(options.nodeArgs ?? []), start.entry], {
    cwd: root,
    // One worker unless the caller asks for more: every bench figure before workers was one process.
    env: { PATH: process.env['PATH'] ?? '', GATEWAY_WORKERS: '1', ...start.env, ...options.env },
    stdio: ['ignore', log, log],
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`gateway exited with ${child.exitCode}; see ${options.logFile}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      await response.arrayBuffer();
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`gateway did not start; see ${options.logFile}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { name: 'gateway', child, pid: child.pid as number, port, stop: stopper(child) };
}
