import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runAgentWorkloads } from './agent-run.ts';
import type { AgentPart } from './agent-workloads.ts';
import { prepareBaseline } from './baseline.ts';
import { batchTable, measureBatchUnderLoad } from './batch-under-load.ts';
import { measureBoxSpeed } from './box-speed.ts';
import { describeEveryCore, type EveryCoreMemory, everyCoreMemory } from './every-core-memory.ts';
import { gatewayEnv } from './gateway-env.ts';
import { governanceScaleSection, measureGovernanceScale, seedGovernanceStore } from './governance-scale.ts';
import {
  DEFAULT_GUARD_WORKLOADS,
  GUARD_WORKLOADS,
  guardrailSection,
  measureGuardrailCost,
} from './guardrail-cost.ts';
import { describeMachine } from './machine.ts';
import { type CaseResult, measureCase, medianRound } from './measure.ts';
import { memory } from './proc-stats.ts';
import {
  freePort,
  ROOT,
  type Server,
  startCommand,
  startForwarder,
  startGateway,
  startHelper,
} from './processes.ts';
import {
  baselineLabel,
  baselineTable,
  machineLines,
  memoryTable,
  type RunMeta,
  requestTable,
  streamTable,
  THIS_COMMIT,
  targetTable,
  threadTable,
  variantTable,
} from './report.ts';
import type { Target, Workload } from './scenarios.ts';
import { describeSettled, type Settled, settle, summarizeSettling } from './settle.ts';
import { checkTargets, type PeakRss } from './targets.ts';

/**
 * `npm run bench`: the mock upstream (a), the thin forwarder (b) and the gateway (c), each in its
 * own process on 127.0.0.1, driven by a load generator in this one. Every run is bounded in time.
 * Prints the tables and writes them, with the machine, to bench/results/.
 */
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '0.5' },
    /**
     * Before the rounds, each server is loaded on each workload until V8 has compiled what it runs
     * (bench/settle.ts), at most this many seconds; 0 warms each for one second, as before.
     */
    settle: { type: 'string', default: '20' },
    workloads: {
      type: 'string',
      default:
        'chat,stream,stream-burst,embed,embed-json,json,openai-chat,cached-chat,messages-relay,messages-relay-stream',
    },
    concurrency: { type: 'string', default: '1,50' },
    variants: { type: 'boolean', default: true },
    write: { type: 'boolean', default: true },
    label: { type: 'string', default: 'mock-upstream' },
    'stream-chunks': { type: 'string', default: '10' },
    'chunk-delay-ms': { type: 'string', default: '2' },
    'embed-dims': { type: 'string', default: '1536' },
    'keep-temp': { type: 'boolean', default: false },
    /** Another revision whose gateway runs beside this one on every workload (bench/baseline.ts). */
    baseline: { type: 'string' },
    /** The agent-shaped workloads (bench/agent-workloads.ts), after the others; `--agent-only` runs just them. */
    agent: { type: 'boolean', default: true },
    'agent-only': { type: 'boolean', default: false },
    /** Which agent workloads run: paced,head-of-line,conversation (all by default). */
    'agent-parts': { type: 'string' },
    'agent-concurrency': { type: 'string', default: '1,16,64' },
    /** Every core beside one worker: a `GATEWAY_WORKERS=auto` gateway in the chat variants and the agent workloads. */
    workers: { type: 'boolean', default: true },
    /** Live chat with a 2,000-request batch running against without (bench/batch-under-load.ts); `--batch-only` runs just it. */
    batch: { type: 'boolean', default: true },
    'batch-only': { type: 'boolean', default: false },
    'batch-connections': { type: 'string', default: '1,8' },
    /** The built-in guards on input and output against none (bench/guardrail-cost.ts); `--guard-only` runs just them. */
    guards: { type: 'boolean', default: true },
    'guard-only': { type: 'boolean', default: false },
    /** Chat with 10,000 apps and 50,000 keys in the store against 1 (bench/governance-scale.ts); `--governance-only` runs just it. */
    governance: { type: 'boolean', default: true },
    'governance-only': { type: 'boolean', default: false },
  },
  allowNegative: true,
});

const seconds = Number(values.seconds);
/** The label of a gateway with a worker per CPU, in the variants and the agent workloads. */
const EVERY_CORE = `GATEWAY_WORKERS=auto (${availableParallelism()})`;
const warmupSeconds = Number(values.warmup);
const settleSeconds = Number(values.settle);
const rounds = Number(values.rounds);
const workloads = values.workloads.split(',') as Workload[];
const concurrencies = values.concurrency.split(',').map(Number);
const mockArgs = {
  streamChunks: Number(values['stream-chunks']),
  chunkDelayMs: Number(values['chunk-delay-ms']),
  embedDims: Number(values['embed-dims']),
};
const resultsDir = fileURLToPath(new URL('bench/results/', ROOT));
const tempDir = join(resultsDir, 'tmp', `run-${process.pid}`);
mkdirSync(tempDir, { recursive: true });

const log = (line: string) => process.stderr.write(`${line}\n`);
const TARGETS = ['direct', 'forwarder', 'gateway'] as const;
const running: Server[] = [];

/** The command `npm start` runs, as the report shows it. */
function startLine(): string {
  const { env, nodeArgs, entry } = startCommand();
  const assignments = Object.entries(env).map(([name, value]) => `${name}=${value}`);
  return [...assignments, 'node', ...nodeArgs, entry].join(' ');
}

async function gateway(
  name: string,
  extra: { env?: Record<string, string>; nodeArgs?: string[]; root?: URL },
  mockPort: number,
) {
  const env: Record<string, string> = {
    ...gatewayEnv(await freePort(), mockPort, join(tempDir, `data-${name}`)),
    ...extra.env,
  };
  // An empty value takes a variable of the bench's environment away (slot C's upstream settings
  // when the slot is simulated).
  for (const [variable, value] of Object.entries(env)) if (value === '') delete env[variable];
  const server = await startGateway({
    env,
    logFile: join(tempDir, `gateway-${name}.log`),
    nodeArgs: extra.nodeArgs ?? [],
    ...(extra.root === undefined ? {} : { root: extra.root }),
  });
  running.push(server);
  return server;
}

/** Settled RSS once started, before any request. */
async function settledRssMb(server: Server): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
  return memory(server.pid).rssMb;
}
const IDLE_SETTLE_MS = 1_000;

/**
 * Idle RSS, before the first request: the benchmark's gateway (alone, every slot on the mock), the
 * forwarder, and `npm start` with its embedded defaults (both surfaces, simulated slots), started
 * for the reading and stopped.
 */
async function idleMemory(
  gatewayAlone: Server,
  forwarder: Server,
): Promise<Pick<PeakRss, 'idleGateway' | 'idleBothSurfaces' | 'idleForwarder'>> {
  const idleGateway = await settledRssMb(gatewayAlone);
  const idleForwarder = memory(forwarder.pid).rssMb;
  const defaults = await startGateway({
    env: {
      GATEWAY_PORT: String(await freePort()),
      SITE_PORT: String(await freePort()),
      HOST: '127.0.0.1',
      DATA_DIR: join(tempDir, 'data-defaults'),
      NODE_ENV: 'production',
    },
    logFile: join(tempDir, 'gateway-defaults.log'),
  });
  running.push(defaults);
  const idleBothSurfaces = await settledRssMb(defaults);
  await defaults.stop();
  log(
    `idle RSS: gateway alone ${idleGateway.toFixed(1)} MiB, npm start defaults ${idleBothSurfaces.toFixed(1)} MiB`,
  );
  return { idleGateway, idleBothSurfaces, idleForwarder };
}

async function main(): Promise<void> {
  const started = Date.now();
  const speedAtStart = measureBoxSpeed();
  log(`box speed: ${speedAtStart.toFixed(2)} ns per loop step`);
  const mock = await startHelper('mock', 'bench/mock-upstream.ts', [
    `--stream-chunks=${mockArgs.streamChunks}`,
    `--chunk-delay-ms=${mockArgs.chunkDelayMs}`,
    `--embed-dims=${mockArgs.embedDims}`,
  ]);
  running.push(mock);
  const forwarder = await startForwarder(mock);
  running.push(forwarder);
  const agent = () => {
    const baseline = values.baseline === undefined ? undefined : prepareBaseline(values.baseline);
    return runAgentWorkloads({
      start: (name, extra) => gateway(name, extra, mock.port),
      forwarder,
      thisCommit: THIS_COMMIT,
      ...(values.workers ? { workers: EVERY_CORE } : {}),
      ...(baseline === undefined
        ? {}
        : { baseline: { label: baselineLabel(baseline.commit), root: baseline.root } }),
      concurrencies: values['agent-concurrency'].split(',').map(Number),
      ...(values['agent-parts'] === undefined
        ? {}
        : { parts: values['agent-parts'].split(',') as AgentPart[] }),
      seconds,
      rounds,
      log,
    });
  };
  if (values['agent-only']) {
    const { section } = await agent();
    const date = new Date().toISOString();
    const report = [`# Gateway benchmark, agent workloads, ${date.slice(0, 10)}`, '', section, ''].join('\n');
    process.stdout.write(`\n${report}`);
    if (values.write)
      writeFileSync(join(resultsDir, `${date.slice(0, 10)}-${values.label}-agent.md`), report);
    return;
  }
  const batchRow = async () => {
    const server = await gateway('batch', {}, mock.port);
    const rows = [];
    for (const connections of values['batch-connections'].split(',').map(Number))
      rows.push(await measureBatchUnderLoad(server, { connections, seconds, rounds, log }));
    await server.stop();
    return ['## Live chat while a batch runs (CONTRACT 6.7)', '', batchTable(rows)].join('\n');
  };
  const guardRows = async (workloads: readonly Workload[]) =>
    guardrailSection(
      await measureGuardrailCost({
        workloads,
        start: (name, extra) => gateway(name, extra, mock.port),
        mock,
        tempDir,
        concurrencies,
        seconds,
        warmupSeconds,
        rounds,
        log,
      }),
    );
  if (values['guard-only']) {
    const date = new Date().toISOString().slice(0, 10);
    const report = [
      `# Gateway benchmark, guardrails, ${date}`,
      '',
      await guardRows(GUARD_WORKLOADS),
      '',
    ].join('\n');
    process.stdout.write(`\n${report}`);
    if (values.write) writeFileSync(join(resultsDir, `${date}-${values.label}-guardrails.md`), report);
    return;
  }
  const governanceRow = async () => {
    const dataDir = join(tempDir, 'data-governance-scale');
    const seeded = seedGovernanceStore(dataDir);
    log(`governance store seeded: ${seeded.apps} apps, ${seeded.keys} keys`);
    const oneApp = await gateway('governance-one-app', {}, mock.port);
    const scaled = await gateway('governance-scale', { env: { DATA_DIR: dataDir } }, mock.port);
    const rows = await measureGovernanceScale({
      oneApp,
      scaled,
      forwarder,
      mock,
      concurrencies,
      seconds,
      warmupSeconds,
      rounds,
      log,
    });
    await Promise.all([oneApp.stop(), scaled.stop()]);
    return governanceScaleSection(rows);
  };
  if (values['governance-only']) {
    const date = new Date().toISOString();
    const report = [
      `# Gateway benchmark, governance scale, ${date.slice(0, 10)}`,
      '',
      await governanceRow(),
      '',
    ].join('\n');
    process.stdout.write(`\n${report}`);
    if (values.write)
      writeFileSync(join(resultsDir, `${date.slice(0, 10)}-${values.label}-governance.md`), report);
    return;
  }
  if (values['batch-only']) {
    const report = [
      `# Gateway benchmark, batches, ${new Date().toISOString().slice(0, 10)}`,
      '',
      await batchRow(),
      '',
    ].join('\n');
    process.stdout.write(`\n${report}`);
    if (values.write)
      writeFileSync(
        join(resultsDir, `${new Date().toISOString().slice(0, 10)}-${values.label}-batch.md`),
        report,
      );
    return;
  }
  const main = await gateway('default', {}, mock.port);
  const servers: Record<Target, Server> = { direct: mock, forwarder, gateway: main };
  const idle = await idleMemory(main, forwarder);
  // npm start's defaults with one process and with a worker per CPU: each process and all.
  let everyCore: EveryCoreMemory | undefined;
  if (values.workers) {
    everyCore = await everyCoreMemory(tempDir);
    log(`idle RSS with every core: ${describeEveryCore(everyCore)}`);
  }

  const measure = (
    target: Target,
    server: Server,
    workload: Workload,
    concurrency: number,
    secs: number,
    warm: number,
    variant?: string,
  ) =>
    measureCase({
      target,
      server,
      mock,
      workload,
      concurrency,
      seconds: secs,
      warmupSeconds: warm,
      ...(variant === undefined ? {} : { variant }),
    });

  /** Each server's warm-up on a workload, before any round: until it settles, or one second. */
  const settled: { name: string; settled: Settled }[] = [];
  const warm = async (target: Target, server: Server, workload: Workload, name: string) => {
    if (settleSeconds <= 0) {
      await measure(target, server, workload, 10, 1, 0);
      return;
    }
    const slice = () => measure(target, server, workload, Math.max(...concurrencies), 1, 0);
    const note = { name: `${name} on ${workload}`, settled: await settle(slice, settleSeconds) };
    settled.push(note);
    log(describeSettled(note.name, note.settled));
  };
  log('warming up every server on every workload…');
  for (const workload of workloads)
    for (const target of TARGETS) await warm(target, servers[target], workload, target);

  // One run on this shared 2-core VM varies by 10-20% from the next: every case runs `rounds`
  // times, and each round takes every workload and every target in turn, so that what is compared
  // (a target with another, and a workload with another: the OpenAI door with the native route)
  // shares the same minutes; the median run (by req/s) of each case is kept.
  const runs = new Map<string, CaseResult[]>();
  const caseKey = (workload: Workload, concurrency: number, target: Target) =>
    `${workload} ${concurrency} ${target}`;
  for (const concurrency of concurrencies) {
    for (let round = 0; round < rounds; round++) {
      for (const workload of workloads) {
        for (const target of TARGETS) {
          const row = await measure(target, servers[target], workload, concurrency, seconds, warmupSeconds);
          // A server that answered nothing would turn every ratio against it into nonsense.
          if (row.requests === 0)
            throw new Error(`${target} answered no request (${workload}, c=${concurrency}); nothing written`);
          const key = caseKey(workload, concurrency, target);
          runs.set(key, [...(runs.get(key) ?? []), row]);
          log(
            `${workload} c=${concurrency} ${target}: ${row.rps.toFixed(0)} req/s, p50 ${row.latency.p50.toFixed(3)} ms, ` +
              `p99 ${row.latency.p99.toFixed(3)} ms, ${row.cpuUsPerRequest.toFixed(0)} µs CPU/req, ${row.failures} errors`,
          );
        }
      }
    }
  }
  const rows: CaseResult[] = [];
  for (const workload of workloads)
    for (const concurrency of concurrencies)
      for (const target of TARGETS)
        rows.push(medianRound(runs.get(caseKey(workload, concurrency, target)) ?? []));
  const gatewayPeakRssMb = memory(main.pid).peakRssMb;
  await main.stop();
  const forwarderPeakRssMb = memory(forwarder.pid).peakRssMb;
  const governanceSection = values.governance ? await governanceRow() : undefined;
  // The forwarder runs on, idle, until the end: the agent workloads below are measured on it too
  // (stopped here, every forwarder case of theirs failed in a full run).

  // How much of the gateway's memory a Node proxy needs anyway: the thin forwarder again, on the
  // V8 flags and malloc setting the gateway starts with (the young generation's size and glibc's
  // arenas set much of the peak), once through every workload at the highest concurrency.
  log('thin forwarder on the start settings of the gateway (peak RSS)…');
  const start = startCommand();
  const sameFlags = await startForwarder(mock, 'forwarder-gateway-flags', start.nodeArgs, start.env);
  running.push(sameFlags);
  for (const workload of workloads)
    await measure('forwarder', sameFlags, workload, Math.max(...concurrencies), seconds, warmupSeconds);
  const rss: PeakRss = {
    ...idle,
    gateway: gatewayPeakRssMb,
    forwarder: forwarderPeakRssMb,
    forwarderGatewayFlags: memory(sameFlags.pid).peakRssMb,
  };
  await sameFlags.stop();

  /**
   * Gateways that differ in one thing, on one workload, side by side: interleaved rounds in the
   * same minutes and the median run of each, as for the main table.
   */
  const sideBySide = async (kinds: [string, Server][], workload: Workload, concurrency: number) => {
    const runs = new Map<string, CaseResult[]>();
    for (let round = 0; round < rounds; round++) {
      for (const [label, server] of kinds) {
        const row = await measure('gateway', server, workload, concurrency, seconds, warmupSeconds, label);
        runs.set(label, [...(runs.get(label) ?? []), row]);
        log(
          `${label}: ${workload} c=${concurrency}: ${row.rps.toFixed(0)} req/s, ${row.cpuUsPerRequest.toFixed(0)} µs CPU/req`,
        );
      }
    }
    return [...runs.values()].map(medianRound);
  };

  const compared: CaseResult[] = [];
  let baseline: { commit: string; rev: string; peakRss: [number, number] } | undefined;
  if (values.baseline !== undefined) {
    const { rev, commit, root } = prepareBaseline(values.baseline);
    log(`this commit against ${rev} (${commit})…`);
    const pair: [string, Server][] = [
      [THIS_COMMIT, await gateway('compare-now', {}, mock.port)],
      [baselineLabel(commit), await gateway(`compare-${commit}`, { root }, mock.port)],
    ];
    for (const workload of workloads)
      for (const [label, server] of pair) await warm('gateway', server, workload, label);
    for (const workload of workloads)
      for (const concurrency of concurrencies)
        compared.push(...(await sideBySide(pair, workload, concurrency)));
    const peaks = pair.map(([, server]) => memory(server.pid).peakRssMb);
    baseline = { commit, rev, peakRss: [peaks[0] as number, peaks[1] as number] };
    for (const [, server] of pair) await server.stop();
  }

  const variants: CaseResult[] = [];
  if (values.variants) {
    // Side by side, in the same minutes: the default gateway (one worker, metrics on, tracing
    // off), one with a worker per CPU (CPU and memory summed over its processes), one
    // logging at warn, one without metrics, one tracing every request to an OTLP sink, one whose
    // ledger accepts batches without writing them (see preload-no-ledger.ts).
    log('gateway variants…');
    // The collector of the tracing variant: reads each export and answers 200, in this process.
    const sink = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    const sinkPort = (sink.address() as { port: number }).port;
    sink.unref();
    const kinds: [string, Server][] = [
      ['default', await gateway('variant-default', {}, mock.port)],
      ...(values.workers
        ? [
            [
              EVERY_CORE,
              await gateway('variant-workers', { env: { GATEWAY_WORKERS: 'auto' } }, mock.port),
            ] as [string, Server],
          ]
        : []),
      ['LOG_LEVEL=warn', await gateway('variant-warn', { env: { LOG_LEVEL: 'warn' } }, mock.port)],
      [
        'METRICS_ENABLED=false',
        await gateway('variant-no-metrics', { env: { METRICS_ENABLED: 'false' } }, mock.port),
      ],
      [
        'tracing on (OTLP/HTTP protobuf)',
        await gateway(
          'variant-tracing',
          { env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sinkPort}` } },
          mock.port,
        ),
      ],
      [
        'ledger writes stubbed',
        await gateway(
          'variant-no-ledger',
          { nodeArgs: ['--import', './bench/preload-no-ledger.ts'] },
          mock.port,
        ),
      ],
    ];
    for (const [label, server] of kinds) await warm('gateway', server, 'chat', label);
    for (const concurrency of concurrencies) variants.push(...(await sideBySide(kinds, 'chat', concurrency)));
    sink.closeAllConnections();
    sink.close();
  }

  const agentRun = values.agent ? await agent() : undefined;
  const batchSection = values.batch ? await batchRow() : undefined;
  const guardSection = values.guards ? await guardRows(DEFAULT_GUARD_WORKLOADS) : undefined;
  const checks = checkTargets(rows, variants, rss);
  const machine = describeMachine();
  const boxSpeed = { startNs: speedAtStart, endNs: measureBoxSpeed() };
  const date = new Date().toISOString();
  const meta: RunMeta = {
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    date,
    seconds,
    warmupSeconds,
    settling: settled.length === 0 ? undefined : summarizeSettling(settled),
    rounds,
    mock: mockArgs,
    rss,
    boxSpeed,
  };
  const report = [
    `# Gateway benchmark, ${date.slice(0, 10)}`,
    '',
    machineLines(machine, meta),
    `- gateway: \`${startLine()}\` (as \`npm start\` runs it, after \`npm run build\`), NODE_ENV=production, LOG_LEVEL=info (one line per request, to a file), embedded SQLite ledger on disk, peak RSS ${rss.gateway.toFixed(0)} MiB (VmHWM)`,
    `- thin forwarder: \`node bench/forwarder.ts\` (Node's default V8 flags), peak RSS ${rss.forwarder.toFixed(0)} MiB; on the gateway's start settings (V8 flags, malloc arenas), once through every workload at c=${Math.max(...concurrencies)}: ${rss.forwarderGatewayFlags?.toFixed(0)} MiB`,
    `- whole run: ${((Date.now() - started) / 1000).toFixed(0)} s`,
    '',
    '## Targets',
    '',
    targetTable(checks),
    ...(checks.every((check) => check.met)
      ? []
      : [
          '',
          'Where a target is not met, `docs/performance.md` gives the profile, what was tried and why (sections "Peak memory under load", "Chat", "Where the targets stand").',
        ]),
    '',
    '## Memory',
    '',
    memoryTable(rss),
    ...(everyCore === undefined
      ? []
      : [
          '',
          `Idle, \`npm start\`'s defaults, 3 s after the last worker listens: ${describeEveryCore(everyCore)}.`,
        ]),
    '',
    '## Requests (non-streaming)',
    '',
    requestTable(rows),
    '',
    '## Streaming chat',
    '',
    streamTable(rows),
    ...(variants.length === 0 ? [] : ['', '## Gateway variants (chat)', '', variantTable(variants, rows)]),
    '',
    "## The servers' CPU per request, by thread",
    '',
    threadTable(rows, variants),
    ...(baseline === undefined
      ? []
      : [
          '',
          `## This commit against ${baseline.rev} (${baseline.commit}), side by side`,
          '',
          `Both gateways started as their own \`npm start\` starts them, on this run's mock and load generator.`,
          '',
          baselineTable(compared, baseline.commit, baseline.peakRss),
        ]),
    ...(agentRun === undefined ? [] : ['', agentRun.section]),
    ...(batchSection === undefined ? [] : ['', batchSection]),
    ...(guardSection === undefined ? [] : ['', guardSection]),
    ...(governanceSection === undefined ? [] : ['', governanceSection]),
    '',
  ].join('\n');
  process.stdout.write(`\n${report}`);
  if (values.write) {
    const file = join(resultsDir, `${date.slice(0, 10)}-${values.label}.md`);
    writeFileSync(file, report);
    writeFileSync(
      join(resultsDir, 'latest.json'),
      `${JSON.stringify({ meta, machine, targets: checks, rows, variants, baseline, compared, agent: agentRun?.results }, null, 2)}\n`,
    );
    log(`written: ${file} and ${join(resultsDir, 'latest.json')}`);
  }
}

try {
  await main();
} finally {
  await Promise.all(running.map((server) => server.stop()));
  if (!values['keep-temp']) rmSync(tempDir, { recursive: true, force: true });
}
