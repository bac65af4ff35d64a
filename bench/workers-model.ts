import { spawn } from 'node:child_process';
import cluster from 'node:cluster';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isMainThread, MessageChannel, parentPort, Worker, workerData } from 'node:worker_threads';
import { runAutocannon } from './load-autocannon.ts';
import { cpuMs, memory } from './proc-stats.ts';
import { freePort, ROOT } from './processes.ts';
import { BENCH_APP, BENCH_SECRET } from './scenarios.ts';

/**
 * `node bench/workers-model.ts`: the measurement behind decision 0031, threads or processes for
 * every core. The real gateway (buildApplication, a simulated slot, the ledger in memory, no
 * limits) serves a small chat in two workers either way:
 *
 * - `threads`: two worker_threads in one process, each its own Fastify listening on one port with
 *   SO_REUSEPORT (the kernel spreads connections);
 * - `processes`: two node:cluster workers on the primary's shared socket (Node's round-robin);
 * - `processes-reuseport`: two cluster workers each binding the port with SO_REUSEPORT.
 *
 * Then the cost of one limit check through a coordinator: a round trip thread to main thread over
 * a MessagePort, worker to primary over cluster's IPC channel, both one at a time and 50 in flight,
 * and an Atomics.add on a SharedArrayBuffer for scale. A server runs in a child process of its own
 * so that its CPU (every process of the model, summed) excludes the load generator.
 */
const { values } = parseArgs({
  options: {
    serve: { type: 'string' },
    ipc: { type: 'boolean', default: false },
    port: { type: 'string', default: '0' },
    workers: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
  },
});
const WORKERS = Number(values.workers);
const SCRIPT = fileURLToPath(import.meta.url);
const MODELS = ['threads', 'processes', 'processes-reuseport'] as const;
type Model = (typeof MODELS)[number];

const SPEC = {
  path: '/v1/chat/completions',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_APP}:${BENCH_SECRET}` },
  body: JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Say hello, briefly.' }],
  }),
};

/** One gateway in this thread or process, listening on `port` (shared or reused). */
async function serveOne(port: number, reusePort: boolean): Promise<void> {
  const { loadConfig } = await import('../src/config/load-config.ts');
  const { buildApplication } = await import('../src/app.ts');
  const { createLogger } = await import('../src/platform/logger.ts');
  const config = loadConfig(
    {
      SURFACES: 'gateway',
      DATA_DIR: ':memory:',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      GATEWAY_APPS: `${BENCH_APP}:${BENCH_SECRET}`,
    },
    [],
  );
  const app = await buildApplication(config, createLogger({ level: 'warn' }));
  const gateway = app.gateway as NonNullable<typeof app.gateway>;
  await gateway.ready();
  gateway.server.listen({ port, host: '127.0.0.1', reusePort, exclusive: reusePort });
  await once(gateway.server, 'listening');
}

async function serve(model: Model, port: number): Promise<void> {
  if (model === 'threads') {
    if (!isMainThread) {
      await serveOne(port, true);
      parentPort?.postMessage('ready');
      return;
    }
    const threads = Array.from(
      { length: WORKERS },
      () => new Worker(SCRIPT, { argv: process.argv.slice(2) }),
    );
    await Promise.all(threads.map((thread) => once(thread, 'message')));
    console.log(JSON.stringify({ pids: [process.pid] }));
    return;
  }
  if (cluster.isWorker) {
    await serveOne(port, model === 'processes-reuseport');
    process.send?.('ready');
    return;
  }
  cluster.schedulingPolicy = cluster.SCHED_RR;
  const forked = Array.from({ length: WORKERS }, () => cluster.fork());
  await Promise.all(forked.map((worker) => once(worker, 'message')));
  console.log(
    JSON.stringify({ pids: [process.pid, ...forked.map((worker) => worker.process.pid as number)] }),
  );
}

async function measureModel(
  model: Model,
): Promise<{ rps: number; cpuUs: number; p99: number; rssMb: number }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [SCRIPT, `--serve=${model}`, `--port=${port}`, `--workers=${WORKERS}`],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const [line] = (await once(lines, 'line')) as [string];
  const { pids } = JSON.parse(line) as { pids: number[] };
  const cpu = () => pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  try {
    const connections = Number(values.connections);
    // The first chat of each worker starts its tokenizer's thread (seconds on a busy machine).
    await Promise.all(
      Array.from({ length: WORKERS * 4 }, () =>
        fetch(`http://127.0.0.1:${port}${SPEC.path}`, {
          method: 'POST',
          headers: SPEC.headers,
          body: SPEC.body,
        }),
      ),
    );
    await runAutocannon({ port, spec: SPEC, connections, seconds: 3 });
    const before = cpu();
    const load = await runAutocannon({ port, spec: SPEC, connections, seconds: Number(values.seconds) });
    const used = cpu() - before;
    const rssMb = pids.reduce((sum, pid) => sum + memory(pid).rssMb, 0);
    if (load.failures > 0) throw new Error(`${model}: ${load.failures} failures`);
    return { rps: load.rps, cpuUs: (used * 1000) / load.requests, p99: load.latency.p99, rssMb };
  } finally {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
}

/** Round trips of a small limit-check message, one at a time and 50 in flight. */
async function timeRoundTrips(
  send: (message: unknown) => void,
  onReply: (listener: (message: { id: number }) => void) => void,
): Promise<{ serialUs: number; pipelinedUs: number }> {
  const waiting = new Map<number, () => void>();
  onReply((message) => waiting.get(message.id)?.());
  let next = 0;
  const ask = () =>
    new Promise<void>((resolve) => {
      const id = ++next;
      waiting.set(id, () => {
        waiting.delete(id);
        resolve();
      });
      send({ id, op: 'reserve', args: ['app:demo:rpm:29000000', 1, 40, 1_740_000_060_000] });
    });
  for (let i = 0; i < 2000; i++) await ask();
  const serialCount = 20_000;
  let started = performance.now();
  for (let i = 0; i < serialCount; i++) await ask();
  const serialUs = ((performance.now() - started) * 1000) / serialCount;
  const batches = 1000;
  started = performance.now();
  for (let i = 0; i < batches; i++) await Promise.all(Array.from({ length: 50 }, ask));
  const pipelinedUs = ((performance.now() - started) * 1000) / (batches * 50);
  return { serialUs, pipelinedUs };
}

async function measureIpc(): Promise<void> {
  if (cluster.isWorker) {
    const result = await timeRoundTrips(
      (message) => process.send?.(message),
      (listener) => process.on('message', listener),
    );
    process.send?.({ done: result });
    return;
  }
  if (!isMainThread) {
    const port = workerData.port as import('node:worker_threads').MessagePort;
    const result = await timeRoundTrips(
      (message) => port.postMessage(message),
      (listener) => port.on('message', listener),
    );
    parentPort?.postMessage({ done: result });
    return;
  }
  const channel = new MessageChannel();
  channel.port1.on('message', (message: { id: number }) =>
    channel.port1.postMessage({ id: message.id, ok: true }),
  );
  const thread = new Worker(SCRIPT, {
    argv: ['--ipc'],
    workerData: { port: channel.port2 },
    transferList: [channel.port2],
  });
  const [threadResult] = (await once(thread, 'message')) as [{ done: unknown }];
  channel.port1.close();
  await thread.terminate();
  const worker = cluster.fork();
  worker.on('message', (message: { id?: number; done?: unknown }) => {
    if (message.done !== undefined) {
      console.log(
        JSON.stringify({ thread: threadResult.done, process: message.done, atomicsNs: timeAtomics() }),
      );
      worker.kill();
      return;
    }
    worker.send({ id: message.id, ok: true });
  });
}

function timeAtomics(): number {
  const counters = new Int32Array(new SharedArrayBuffer(1024));
  const count = 10_000_000;
  const started = performance.now();
  for (let i = 0; i < count; i++) Atomics.add(counters, i & 255, 1);
  return ((performance.now() - started) * 1e6) / count;
}

async function report(): Promise<void> {
  const rounds = Number(values.rounds);
  console.log(
    `| model (${WORKERS} workers, ${values.connections} connections) | round | req/s | CPU µs/request | p99 ms | RSS MB (all) |`,
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (let round = 1; round <= rounds; round++) {
    for (const model of MODELS) {
      const result = await measureModel(model);
      console.log(
        `| ${model} | ${round} | ${Math.round(result.rps)} | ${Math.round(result.cpuUs)} | ${result.p99.toFixed(1)} | ${Math.round(result.rssMb)} |`,
      );
    }
  }
  const ipc = spawn(process.execPath, [SCRIPT, '--ipc'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: ipc.stdout as NodeJS.ReadableStream });
  const [line] = (await once(lines, 'line')) as [string];
  await once(ipc, 'exit');
  const figures = JSON.parse(line) as {
    thread: { serialUs: number; pipelinedUs: number };
    process: { serialUs: number; pipelinedUs: number };
    atomicsNs: number;
  };
  console.log('\n| limit check through | one at a time, µs per round trip | 50 in flight, µs each |');
  console.log('| --- | --- | --- |');
  console.log(
    `| MessagePort (thread to main thread) | ${figures.thread.serialUs.toFixed(1)} | ${figures.thread.pipelinedUs.toFixed(2)} |`,
  );
  console.log(
    `| cluster IPC (worker to primary) | ${figures.process.serialUs.toFixed(1)} | ${figures.process.pipelinedUs.toFixed(2)} |`,
  );
  console.log(
    `| Atomics.add on a SharedArrayBuffer (no round trip) | ${(figures.atomicsNs / 1000).toFixed(3)} | |`,
  );
}

if (values.serve !== undefined) await serve(values.serve as Model, Number(values.port));
else if (values.ipc) await measureIpc();
else if (cluster.isPrimary && isMainThread) await report();
