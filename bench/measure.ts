import type { LatencySummary } from './latency-stats.ts';
import { runAutocannon } from './load-autocannon.ts';
import { cpuMs, cpuMsByThread, sampleRss, THREAD_KINDS, type ThreadCpu } from './proc-stats.ts';
import type { Server } from './processes.ts';
import { requestFor, STREAM_WORKLOADS, streamEndMarker, type Target, type Workload } from './scenarios.ts';
import { runStreams } from './stream-client.ts';

export interface CaseResult {
  workload: Workload;
  concurrency: number;
  target: Target;
  /** Which gateway configuration, when it is not the default one. */
  variant: string;
  requests: number;
  rps: number;
  failures: number;
  /** Whole response (for streams: to the end of the stream). */
  latency: LatencySummary;
  /** Streams only: to the first byte of the body. */
  firstByte?: LatencySummary;
  readsPerStream?: number;
  /** Streams only: first to last body chunk. */
  spread?: LatencySummary;
  /** CPU time per request of the server under test (the mock itself for `direct`), µs. */
  cpuUsPerRequest: number;
  /** The server's CPU time per request by kind of thread, µs (they add up to `cpuUsPerRequest`, give or take a tick). */
  cpuUsByThread: ThreadCpu;
  /** CPU time per request of the mock upstream, µs. */
  mockCpuUsPerRequest: number;
  /** Highest RSS of the server under test during the run, MiB. */
  rssMaxMb: number;
  /** Set on a row chosen as the median of several rounds: how far the rounds spread. */
  acrossRounds?: RoundSpread;
}

/** The lowest and highest figures over the rounds a median row was chosen from. */
export interface RoundSpread {
  rounds: number;
  rpsMin: number;
  rpsMax: number;
  cpuMin: number;
  cpuMax: number;
}

/** The median round by req/s, with the spread of all the rounds beside it. */
export function medianRound(rows: readonly CaseResult[]): CaseResult {
  if (rows.length === 0) throw new Error('no rounds to take the median of');
  const median = [...rows].sort((a, b) => a.rps - b.rps)[Math.floor(rows.length / 2)] as CaseResult;
  const rps = rows.map((r) => r.rps);
  const cpu = rows.map((r) => r.cpuUsPerRequest);
  return {
    ...median,
    acrossRounds: {
      rounds: rows.length,
      rpsMin: Math.min(...rps),
      rpsMax: Math.max(...rps),
      cpuMin: Math.min(...cpu),
      cpuMax: Math.max(...cpu),
    },
  };
}

export interface CaseSpec {
  target: Target;
  variant?: string;
  /** The server the requests go to. */
  server: Server;
  mock: Server;
  workload: Workload;
  concurrency: number;
  seconds: number;
  warmupSeconds: number;
}

interface Driven {
  requests: number;
  rps: number;
  failures: number;
  latency: LatencySummary;
  stream?: { firstByte: LatencySummary; readsPerStream: number; spread: LatencySummary };
}

async function drive(spec: CaseSpec, seconds: number): Promise<Driven> {
  const request = requestFor(spec.target, spec.workload);
  const common = { port: spec.server.port, spec: request, connections: spec.concurrency, seconds };
  if (STREAM_WORKLOADS.includes(spec.workload)) {
    const result = await runStreams({ ...common, endMarker: streamEndMarker(spec.target, spec.workload) });
    return {
      ...result,
      latency: result.total,
      stream: { firstByte: result.firstByte, readsPerStream: result.readsPerStream, spread: result.spread },
    };
  }
  return runAutocannon(common);
}

/** One row of the table: a short unmeasured warm-up, then a timed run with CPU and memory counted. */
export async function measureCase(spec: CaseSpec): Promise<CaseResult> {
  if (spec.warmupSeconds > 0) await drive(spec, spec.warmupSeconds);
  const serverCpu = cpuMs(spec.server.pid);
  const serverThreads = cpuMsByThread(spec.server.pid);
  const mockCpu = cpuMs(spec.mock.pid);
  const rss = sampleRss(spec.server.pid);
  const result = await drive(spec, spec.seconds);
  const rssMaxMb = rss.stop();
  const perRequest = (before: number, pid: number) => usPerRequest(cpuMs(pid) - before, result.requests);
  const threadsAfter = cpuMsByThread(spec.server.pid);
  const byThread = {} as ThreadCpu;
  for (const kind of THREAD_KINDS)
    byThread[kind] = usPerRequest(threadsAfter[kind] - serverThreads[kind], result.requests);
  const row: CaseResult = {
    workload: spec.workload,
    concurrency: spec.concurrency,
    target: spec.target,
    variant: spec.variant ?? 'default',
    requests: result.requests,
    rps: result.rps,
    failures: result.failures,
    latency: result.latency,
    cpuUsPerRequest: perRequest(serverCpu, spec.server.pid),
    cpuUsByThread: byThread,
    mockCpuUsPerRequest: perRequest(mockCpu, spec.mock.pid),
    rssMaxMb,
  };
  if (result.stream !== undefined) {
    row.firstByte = result.stream.firstByte;
    row.readsPerStream = result.stream.readsPerStream;
    row.spread = result.stream.spread;
  }
  return row;
}

function usPerRequest(ms: number, requests: number): number {
  return requests === 0 ? Number.NaN : (ms * 1000) / requests;
}
