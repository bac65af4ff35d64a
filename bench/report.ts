import type { Machine } from './machine.ts';
import type { CaseResult } from './measure.ts';
import { THREAD_KINDS } from './proc-stats.ts';
import { STREAM_WORKLOADS, type Workload } from './scenarios.ts';
import { findRow, type PeakRss, type TargetCheck } from './targets.ts';

export interface RunMeta {
  command: string;
  date: string;
  seconds: number;
  warmupSeconds: number;
  /** How the servers' warm-up before the rounds went (bench/settle.ts); undefined when it was one second. */
  settling: string | undefined;
  /** Runs per case, interleaved across the targets; the table shows the median run. */
  rounds: number;
  mock: { streamChunks: number; chunkDelayMs: number; embedDims: number };
  rss: PeakRss;
  /** Nanoseconds per step of `box-speed.ts`'s loop, before the first case and after the last. */
  boxSpeed: { startNs: number; endNs: number };
}

const LABEL = { direct: '(a) mock direct', forwarder: '(b) thin forwarder', gateway: '(c) gateway' };
const f3 = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(3));
const f0 = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(0));
const ratio = (n: number | undefined) =>
  n === undefined || Number.isNaN(n) ? '–' : `${(n * 100).toFixed(0)}%`;
/** The CPU per request of the fastest and slowest round, where a row is a median of several. */
const cpuRange = (r: CaseResult | undefined) =>
  r?.acrossRounds === undefined ? '–' : `${f0(r.acrossRounds.cpuMin)}-${f0(r.acrossRounds.cpuMax)}`;

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Idle RSS (once started, before a request) and peak RSS (VmHWM over the run), MiB. */
export function memoryTable(rss: PeakRss): string {
  return table(
    [
      'RSS, MiB',
      '(c) gateway alone',
      'npm start (both surfaces, defaults)',
      '(b) forwarder',
      "(b) on the gateway's start settings",
    ],
    [
      ['idle, after start-up', f0(rss.idleGateway), f0(rss.idleBothSurfaces), f0(rss.idleForwarder), '–'],
      ['peak over the run (VmHWM)', f0(rss.gateway), '–', f0(rss.forwarder), f0(rss.forwarderGatewayFlags)],
    ],
  );
}

/** Requests per second, latency, added latency against (a) and throughput against (b). */
export function requestTable(rows: readonly CaseResult[]): string {
  const body = rows
    .filter((r) => !STREAM_WORKLOADS.includes(r.workload) && r.variant === 'default')
    .map((r) => {
      const direct = findRow(rows, r.workload, r.concurrency, 'direct');
      const forwarder = findRow(rows, r.workload, r.concurrency, 'forwarder');
      const added = r.target === 'direct' ? undefined : direct;
      return [
        r.workload,
        String(r.concurrency),
        LABEL[r.target],
        f0(r.rps),
        f3(r.latency.p50),
        f3(r.latency.p99),
        added === undefined ? '–' : f3(r.latency.p50 - added.latency.p50),
        added === undefined ? '–' : f3(r.latency.p99 - added.latency.p99),
        forwarder === undefined ? '–' : ratio(r.rps / forwarder.rps),
        f0(r.cpuUsPerRequest),
        f0(r.mockCpuUsPerRequest),
        String(r.failures),
      ];
    });
  return table(
    [
      'workload',
      'conc',
      'target',
      'req/s',
      'p50 ms',
      'p99 ms',
      'added p50 ms',
      'added p99 ms',
      'req/s vs (b)',
      'server CPU µs/req',
      'mock CPU µs/req',
      'errors',
    ],
    body,
  );
}

/** How each streamed workload's upstream writes its chunks (the Messages relay's are spaced too). */
const STREAM_LABEL: Partial<Record<Workload, string>> = {
  stream: 'spaced',
  'stream-burst': 'burst',
  'messages-relay-stream': 'spaced, Messages relay',
};

/** Streams: time to first byte and to the end, added against (a). */
export function streamTable(rows: readonly CaseResult[]): string {
  const body = rows
    .filter((r) => STREAM_WORKLOADS.includes(r.workload) && r.variant === 'default')
    .map((r) => {
      const direct = r.target === 'direct' ? undefined : findRow(rows, r.workload, r.concurrency, 'direct');
      const forwarder = findRow(rows, r.workload, r.concurrency, 'forwarder');
      return [
        STREAM_LABEL[r.workload] ?? r.workload,
        String(r.concurrency),
        LABEL[r.target],
        f0(r.rps),
        f3(r.firstByte?.p50),
        f3(r.firstByte?.p99),
        direct?.firstByte === undefined ? '–' : f3((r.firstByte?.p50 ?? 0) - direct.firstByte.p50),
        f3(r.latency.p50),
        f3(r.latency.p99),
        direct === undefined ? '–' : f3(r.latency.p50 - direct.latency.p50),
        (r.readsPerStream ?? 0).toFixed(1),
        f3(r.spread?.p50),
        forwarder === undefined ? '–' : ratio(r.rps / forwarder.rps),
        f0(r.cpuUsPerRequest),
        String(r.failures),
      ];
    });
  return table(
    [
      'upstream chunks',
      'conc',
      'target',
      'streams/s',
      'TTFB p50 ms',
      'TTFB p99 ms',
      'added TTFB p50 ms',
      'total p50 ms',
      'total p99 ms',
      'added total p50 ms',
      'chunks/stream',
      'first→last chunk p50 ms',
      'vs (b)',
      'server CPU µs/req',
      'errors',
    ],
    body,
  );
}

/** The same chat workload on gateways that differ in one setting, measured side by side. */
export function variantTable(variants: readonly CaseResult[], rows: readonly CaseResult[]): string {
  const body = variants.map((r) => {
    const base = findRow(variants, r.workload, r.concurrency, 'gateway', 'default');
    // The forwarder of the main table, same workload and concurrency, same run.
    const forwarder = findRow(rows, r.workload, r.concurrency, 'forwarder');
    return [
      r.variant,
      String(r.concurrency),
      f0(r.rps),
      f3(r.latency.p50),
      f3(r.latency.p99),
      f0(r.cpuUsPerRequest),
      cpuRange(r),
      base === undefined ? '–' : ratio(r.rps / base.rps),
      forwarder === undefined ? '–' : ratio(r.cpuUsPerRequest / forwarder.cpuUsPerRequest),
    ];
  });
  return table(
    [
      'gateway variant',
      'conc',
      'req/s',
      'p50 ms',
      'p99 ms',
      'CPU µs/req',
      'CPU over the rounds',
      'req/s vs default',
      'CPU/req vs forwarder',
    ],
    body,
  );
}

/**
 * Where the server's CPU goes, by kind of thread (see `cpuMsByThread`): the forwarder's and the
 * gateway's rows, then the chat variants'. Counted CPU rather than throughput, so it moves less
 * with the load generator and the mock than req/s does.
 */
export function threadTable(rows: readonly CaseResult[], variants: readonly CaseResult[]): string {
  const line = (r: CaseResult, server: string) => [
    r.workload,
    String(r.concurrency),
    server,
    f0(r.cpuUsPerRequest),
    ...THREAD_KINDS.map((kind) => f0(r.cpuUsByThread[kind])),
  ];
  const body = [
    ...rows
      .filter((r) => r.target !== 'direct' && r.variant === 'default')
      .map((r) => line(r, LABEL[r.target])),
    ...variants.map((r) => line(r, `${LABEL[r.target]}, variant: ${r.variant}`)),
  ];
  return table(
    [
      'workload',
      'conc',
      'server',
      'CPU µs/req',
      'main thread',
      'V8 helpers (GC, compiling)',
      'worker threads (ledger writer)',
      'libuv pool (log writes)',
      'other',
    ],
    body,
  );
}

/** Labels of the two gateways of `--baseline`, as `CaseResult.variant`. */
export const THIS_COMMIT = 'this commit';
export const baselineLabel = (commit: string) => `at ${commit}`;

/**
 * This commit's gateway against another revision's (`--baseline`), every workload, measured in
 * interleaved rounds in the same minutes; ratios are this commit's over the baseline's.
 */
export function baselineTable(
  rows: readonly CaseResult[],
  commit: string,
  peakRss: [number, number],
): string {
  const ours = rows.filter((r) => r.variant === THIS_COMMIT);
  const body = ours.map((r) => {
    const base = findRow(rows, r.workload, r.concurrency, 'gateway', baselineLabel(commit));
    return [
      r.workload,
      String(r.concurrency),
      f0(base?.rps),
      f0(r.rps),
      base === undefined ? '–' : ratio(r.rps / base.rps),
      f0(base?.cpuUsPerRequest),
      f0(r.cpuUsPerRequest),
      base === undefined ? '–' : ratio(r.cpuUsPerRequest / base.cpuUsPerRequest),
      cpuRange(base),
      cpuRange(r),
      f3(base?.latency.p50),
      f3(r.latency.p50),
    ];
  });
  return [
    table(
      [
        'workload',
        'conc',
        `req/s at ${commit}`,
        'req/s now',
        'req/s now vs then',
        `CPU µs/req at ${commit}`,
        'CPU µs/req now',
        'CPU now vs then',
        `CPU over the rounds at ${commit}`,
        'CPU over the rounds now',
        `p50 ms at ${commit}`,
        'p50 ms now',
      ],
      body,
    ),
    '',
    `Peak RSS over these workloads: ${f0(peakRss[1])} MiB at ${commit}, ${f0(peakRss[0])} MiB now.`,
  ].join('\n');
}

export function targetTable(checks: readonly TargetCheck[]): string {
  return table(
    ['target', 'goal', 'measured', 'met'],
    checks.map((c) => [c.name, c.goal, c.measured, c.met ? 'yes' : '**no**']),
  );
}

export function machineLines(machine: Machine, meta: RunMeta): string {
  return [
    `- date: ${meta.date}`,
    `- command: \`${meta.command}\``,
    `- machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGb} GiB RAM, Linux ${machine.kernel}`,
    `- box speed: ${meta.boxSpeed.startNs.toFixed(2)} ns per step of \`bench/box-speed.ts\`'s integer loop before the first case, ${meta.boxSpeed.endNs.toFixed(2)} ns after the last (lower is faster; compare reports only where these are near)`,
    `- node ${machine.node}; commit ${machine.commit}${machine.dirty ? ' plus uncommitted changes' : ''}`,
    `- each case: ${meta.rounds} rounds, each round every workload and server in turn, the median round (by req/s) shown; each round ${meta.warmupSeconds} s warm-up (not counted), then ${meta.seconds} s measured; closed loop`,
    meta.settling === undefined
      ? '- before the rounds: each server warmed for 1 s on each workload'
      : `- before the rounds: each server loaded on each workload until V8's helper threads took at most 5% of its CPU in a second (its hot code compiled): ${meta.settling}`,
    `- mock upstream: streams of ${meta.mock.streamChunks} content chunks (plus role, finish, usage and [DONE] events) ${meta.mock.chunkDelayMs} ms apart (\`spaced\`), or all in one write (\`burst\`); embeddings of ${meta.mock.embedDims} dimensions (base64 upstream, number arrays from the gateway)`,
    '- the load generator (autocannon; a small node:http client for streams), the mock upstream and the server under test share the same cores: req/s is what this box does with all three on it; CPU µs per request is counted for the server process alone (/proc/<pid>/stat)',
  ].join('\n');
}
