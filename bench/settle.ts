import type { CaseResult } from './measure.ts';

/** A slice of load in which V8's helper threads took at most this share of the server's CPU ends the warm-up. */
export const SETTLED_HELPER_SHARE = 0.05;

export interface Settled {
  /** Seconds of load it took. */
  seconds: number;
  /** V8's helper threads' share of the server's CPU in the last slice. */
  helperShare: number;
  /** False when the time ran out first. */
  settled: boolean;
}

/**
 * Warms a server on a workload until V8 has compiled what the load runs: slices of load (`slice`,
 * one second each) until one in which V8's helper threads (its optimising compilers, and the
 * collector's parallel work) took at most SETTLED_HELPER_SHARE of the server's CPU, or
 * `maxSeconds` of load have gone by. A process serves millions of requests and compiles its hot
 * code once; a warm-up of a second left the gateway compiling for its first 20,000 requests or so
 * (V8's threads at 60-100 µs a request, 9 in the steady state after), and the forwarder, with
 * less code, for fewer: a measured round then held part of a one-time cost, more of the gateway's.
 */
export async function settle(slice: () => Promise<CaseResult>, maxSeconds: number): Promise<Settled> {
  let seconds = 0;
  for (;;) {
    const row = await slice();
    seconds++;
    const helperShare = row.cpuUsPerRequest > 0 ? row.cpuUsByThread.v8 / row.cpuUsPerRequest : 0;
    if (helperShare <= SETTLED_HELPER_SHARE) return { seconds, helperShare, settled: true };
    if (seconds >= maxSeconds) return { seconds, helperShare, settled: false };
  }
}

/** How a settle went, for the log and the report. */
export function describeSettled(name: string, settled: Settled): string {
  const share = `${(settled.helperShare * 100).toFixed(1)}% of its CPU in V8's helper threads`;
  return settled.settled
    ? `${name} settled after ${settled.seconds} s (${share})`
    : `${name} not settled after ${settled.seconds} s (still ${share})`;
}

/** One line for the report: how long the longest settle took, and any server that did not settle. */
export function summarizeSettling(notes: readonly { name: string; settled: Settled }[]): string {
  if (notes.length === 0) return 'no server was loaded';
  const longest = notes.reduce((a, b) => (b.settled.seconds > a.settled.seconds ? b : a));
  const unsettled = notes.filter((note) => !note.settled.settled).map((note) => note.name);
  const settledCount = notes.length - unsettled.length;
  return (
    `${settledCount} of ${notes.length} settled, the longest after ${longest.settled.seconds} s (${longest.name})` +
    (unsettled.length === 0 ? '' : `; not settled in time: ${unsettled.join(', ')}`)
  );
}
