import { spawn } from 'node:child_process';
import { mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { prepareBaseline } from './baseline.ts';
import { drive, workloadSpecs } from './drive-requests.ts';
import { gatewayEnv } from './gateway-env.ts';
import { SCALE, seedGovernanceStore } from './governance-scale.ts';
import { BENCH_GUARDRAILS } from './guardrail-cost.ts';
import { freePort, ROOT, runPrestart, type Server, startCommand, startHelper } from './processes.ts';
import { formatRuntimeCallers, readPerfMap, runtimeCallers } from './runtime-callers.ts';

/**
 * `node bench/instructions.ts --workload=chat --requests=2000 --baseline=REV`: the instructions a
 * request costs the gateway (every thread: the main one, the ledger's writer, V8's helpers),
 * counted by valgrind's callgrind over a fixed number of requests after a warm-up. Unlike CPU
 * time, the count does not move with the load of a shared box, so a difference of a few percent
 * between two commits is visible. Valgrind runs the process 20-50 times slower, and it serialises
 * threads, so nothing of latency or throughput is read here. `--workload=conversation` sends the
 * agent conversation of bench/agent-workloads.ts (its `--requests` turns), `--workload=huge-relay`
 * the head-of-line case's 1 MiB Messages prompts on the Anthropic door's same-vendor lane. `--baseline=A,B,C`
 * measures several revisions in turn (a bisection), `--baseline-only` leaves this checkout out.
 * `--guards` also counts this commit with the built-in guards on input and output, beside it;
 * `--forwarder` the thin forwarder on the same requests (user space only: the kernel's share of
 * each system call is bench/syscalls.ts's to count). `--node-flags='--a --b'` starts every gateway
 * with those node flags added (CALLGRIND_ARGS in the environment adds callgrind's own options).
 * `--runtime-callers` also prints which JavaScript enters V8's runtime functions on this commit's
 * main thread, and how much that costs a request (bench/runtime-callers.ts).
 */
const { values } = parseArgs({
  options: {
    workload: { type: 'string', default: 'chat' },
    requests: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '1500' },
    concurrency: { type: 'string', default: '8' },
    baseline: { type: 'string' },
    /** With `--baseline`: measure only the baselines, not this checkout. */
    'baseline-only': { type: 'boolean', default: false },
    /** Also this commit with the bench app's built-in guards on input and output (bench/guardrail-cost.ts). */
    guards: { type: 'boolean', default: false },
    /** Also this commit with 10,000 apps and 50,000 keys in its store (bench/governance-scale.ts). */
    'governance-scale': { type: 'boolean', default: false },
    /** Also the thin forwarder (bench/forwarder.ts) on the same requests, the floor the gateway is compared with. */
    forwarder: { type: 'boolean', default: false },
    /**
     * Node flags added to every gateway's start (space-separated). `--min-semi-space-size=16
     * --max-semi-space-size=16` fixes the young generation's size, so that two builds' counts are
     * not apart by where V8's sizing of it stood: the main thread's scavenges moved by 15k
     * instructions a request between runs of the same code without it.
     */
    'node-flags': { type: 'string' },
    /**
     * Which JavaScript enters V8's runtime functions (this commit's main thread): callgrind keeps
     * three callers per function, node writes its perf map. Its counts are not to be set beside
     * a run's without it: the map's writes and callgrind's contexts add to them.
     */
    'runtime-callers': { type: 'boolean', default: false },
  },
});

const NODE_FLAGS = [
  ...(values['node-flags']?.split(' ').filter((flag) => flag !== '') ?? []),
  ...(values['runtime-callers'] ? ['--perf-basic-prof'] : []),
];
const CALLGRIND_OPTIONS = [
  ...(process.env.CALLGRIND_ARGS?.split(' ').filter((arg) => arg !== '') ?? []),
  ...(values['runtime-callers'] ? ['--separate-callers=3'] : []),
];
const dir = join(fileURLToPath(new URL('bench/results/tmp/', ROOT)), `instructions-${process.pid}`);
mkdirSync(dir, { recursive: true });
const running: Server[] = [];
/** Where valgrind and callgrind_control meet (the default name holds the user and host, which the gateway's environment lacks). */
const vgdbPrefix = join(dir, 'vgdb');

function callgrindControl(pid: number, ...args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('callgrind_control', [`--vgdb-prefix=${vgdbPrefix}`, ...args, String(pid)], {
      stdio: ['ignore', 'ignore', 'inherit'],
      // vgdb's files are named after USER and HOST as the valgrind process saw them.
      env: { ...process.env, USER: 'bench', HOST: '127.0.0.1' },
    });
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`callgrind_control ${args} ${code}`)),
    );
  });
}

interface Counted {
  /** Every thread. */
  total: number;
  /** The main thread (the event loop): the steadiest figure, as V8's helper threads may still be compiling. */
  main: number;
  /** The main thread's dump, and the process it was of. */
  mainFile?: string;
  pid?: number;
}

/** Instructions (Ir) of every callgrind dump under `prefix` (one file per thread), in all and of the main thread. */
function instructionsIn(prefix: string): Counted {
  const counted: Counted = { total: 0, main: 0 };
  for (const file of readdirSync(dir).filter((name) => name.startsWith(prefix) && !name.endsWith('.log'))) {
    const text = readFileSync(join(dir, file), 'utf8');
    if (!/^desc: Trigger: dump measured/m.test(text)) continue;
    const summary = /^summary:\s+(\d+)/m.exec(text);
    if (summary === null) continue;
    counted.total += Number(summary[1]);
    if (/^thread: 1$/m.test(text)) {
      counted.main += Number(summary[1]);
      counted.mainFile = join(dir, file);
    }
  }
  return counted;
}

/** What runs under valgrind: a command line after the interpreter, its environment, and its port. */
interface Launch {
  cwd: URL;
  args: string[];
  env: Record<string, string>;
  port: number;
  target: 'gateway' | 'forwarder';
}

async function gatewayLaunch(
  label: string,
  root: URL | undefined,
  mockPort: number,
  env: Record<string, string> = {},
  seed?: (dataDir: string) => void,
): Promise<Launch> {
  const at = root ?? ROOT;
  runPrestart(at);
  const start = startCommand(at);
  const port = await freePort();
  const data = join(dir, `data-${prefixOf(label)}`);
  seed?.(data);
  return {
    cwd: at,
    args: [...start.nodeArgs, ...NODE_FLAGS, start.entry],
    env: { ...start.env, ...gatewayEnv(port, mockPort, data), ...env },
    port,
    target: 'gateway',
  };
}

/** The thin forwarder in front of the same mock, on Node's default flags as the timed bench runs it. */
async function forwarderLaunch(mockPort: number): Promise<Launch> {
  const port = await freePort();
  return {
    cwd: ROOT,
    args: ['bench/forwarder.ts', `--upstream=http://127.0.0.1:${mockPort}`, `--port=${port}`],
    // callgrind_control finds the process by a file named after USER and HOST (see callgrindControl).
    env: { HOST: '127.0.0.1' },
    port,
    target: 'forwarder',
  };
}

function prefixOf(label: string): string {
  return `callgrind-${label.replace(/\W+/g, '-')}`;
}

/** Answers once the server takes a connection (the forwarder passes `/health` on to the mock). */
async function listening(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/health`)
    .then(async (response) => {
      await response.arrayBuffer();
      return true;
    })
    .catch(() => false);
}

async function measure(label: string, launch: Launch): Promise<Counted> {
  const prefix = prefixOf(label);
  const log = openSync(join(dir, `${prefix}.log`), 'a');
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--separate-threads=yes',
      ...CALLGRIND_OPTIONS,
      `--vgdb-prefix=${vgdbPrefix}`,
      `--callgrind-out-file=${join(dir, `${prefix}.%p`)}`,
      process.execPath,
      ...launch.args,
    ],
    {
      cwd: launch.cwd,
      env: { PATH: process.env['PATH'] ?? '', USER: 'bench', ...launch.env },
      stdio: ['ignore', log, log],
    },
  );
  const port = launch.port;
  try {
    const deadline = Date.now() + 300_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${label} exited; see ${prefix}.log`);
      if (await listening(port)) break;
      if (Date.now() > deadline) throw new Error(`${label} did not start`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const specs = workloadSpecs(values.workload, launch.target);
    await drive(port, specs, Number(values.warmup), Number(values.concurrency));
    // Counters zeroed after the warm-up, dumped after the measured requests (one file a thread).
    await callgrindControl(child.pid as number, '--zero');
    await drive(port, specs, Number(values.requests), Number(values.concurrency));
    await callgrindControl(child.pid as number, '--dump=measured');
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  const counted = instructionsIn(prefix);
  const requests = Number(values.requests);
  return {
    total: counted.total / requests,
    main: counted.main / requests,
    ...(counted.mainFile === undefined ? {} : { mainFile: counted.mainFile }),
    ...(child.pid === undefined ? {} : { pid: child.pid }),
  };
}

try {
  const mock = await startHelper('mock', 'bench/mock-upstream.ts', []);
  running.push(mock);
  const rows: [string, Counted][] = [];
  if (!values['baseline-only'])
    rows.push([
      'this commit',
      await measure('this commit', await gatewayLaunch('this commit', undefined, mock.port)),
    ]);
  if (values.forwarder)
    rows.push(['thin forwarder', await measure('thin forwarder', await forwarderLaunch(mock.port))]);
  if (values.guards) {
    const file = join(dir, 'guardrails.json');
    writeFileSync(file, JSON.stringify({ guardrails: BENCH_GUARDRAILS }));
    const label = 'this commit, built-in guards on input and output';
    rows.push([
      label,
      await measure(label, await gatewayLaunch(label, undefined, mock.port, { CONFIG_FILE: file })),
    ]);
  }
  if (values['governance-scale'])
    rows.push([
      `this commit, ${SCALE.apps} apps and ${SCALE.apps * SCALE.keysPerApp} keys in the store`,
      await measure(
        'governance scale',
        await gatewayLaunch('governance scale', undefined, mock.port, {}, (dataDir) =>
          seedGovernanceStore(dataDir),
        ),
      ),
    ]);
  // Several baselines, comma-separated, are measured in turn: a bisection in one command.
  for (const rev of values.baseline?.split(',').filter((name) => name !== '') ?? []) {
    const baseline = prepareBaseline(rev);
    rows.push([
      `baseline ${baseline.commit}`,
      await measure(
        `baseline ${baseline.commit}`,
        await gatewayLaunch(`baseline ${baseline.commit}`, baseline.root, mock.port),
      ),
    ]);
  }
  process.stdout.write(
    `${values.workload}, ${values.requests} requests after ${values.warmup}, ${values.concurrency} at a time${NODE_FLAGS.length === 0 ? '' : `, gateways started with ${NODE_FLAGS.join(' ')}`}\n`,
  );
  for (const [label, perRequest] of rows)
    process.stdout.write(
      `${label}: ${(perRequest.total / 1000).toFixed(1)} k instructions per request, of which the main thread ${(perRequest.main / 1000).toFixed(1)} k\n`,
    );
  const thisCommit = rows.find(([label]) => label === 'this commit')?.[1];
  if (values['runtime-callers'] && thisCommit?.mainFile !== undefined && thisCommit.pid !== undefined) {
    // node writes its map where perf looks for it; it is read here, and every gateway's removed.
    const map = `/tmp/perf-${thisCommit.pid}.map`;
    const uses = runtimeCallers(thisCommit.mainFile, readPerfMap(map), Number(values.requests));
    process.stdout.write(formatRuntimeCallers(uses));
  }
  // KEEP=1 keeps the maps beside the dumps, to name compiled code in them afterwards.
  if (values['runtime-callers'] && process.env.KEEP === undefined)
    for (const [, counted] of rows)
      if (counted.pid !== undefined) rmSync(`/tmp/perf-${counted.pid}.map`, { force: true });
} finally {
  for (const server of running) await server.stop();
  if (process.env.KEEP === undefined) rmSync(dir, { recursive: true, force: true });
}
