import { Agent, request } from 'undici';

export interface TimedLoadOptions {
  origin: string;
  headers: Record<string, string>;
  /** Requests in flight at once, each on its own connection. */
  connections: number;
  durationMs: number;
  /** The path and body each request sends (default: a simulated chat of 2 ms). */
  path?: string;
  body?: (sent: number) => unknown;
}

export interface TimedLoadResult {
  answers: number;
  failures: number;
  /** Answers per second over the run. */
  rate: number;
  p50Ms: number;
  p99Ms: number;
  /** performance.now() when the last answer arrived. */
  lastAnswerAt: number;
  /** The ids of the answers whose body had one. */
  ids: string[];
}

function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
}

/**
 * A closed loop of requests for a fixed time, as autocannon runs one: each connection sends its
 * next request when the previous answer arrived. Keeps every latency, so p99 is exact.
 */
export async function runTimedLoad(options: TimedLoadOptions): Promise<TimedLoadResult> {
  const agent = new Agent({ connections: options.connections, pipelining: 1 });
  const latencies: number[] = [];
  const ids: string[] = [];
  let failures = 0;
  let sent = 0;
  let lastAnswerAt = 0;
  const started = performance.now();
  const until = started + options.durationMs;
  const body =
    options.body ??
    ((n: number) => ({
      messages: [{ role: 'user', content: `load ${n}` }],
      metadata: { simulated: { latencyMs: 2 } },
    }));
  const loop = async () => {
    while (performance.now() < until) {
      const at = performance.now();
      try {
        const res = await request(`${options.origin}${options.path ?? '/v1/chat'}`, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json', ...options.headers },
          body: JSON.stringify(body(sent++)),
        });
        const text = await res.body.text();
        if (res.statusCode === 200) {
          lastAnswerAt = performance.now();
          latencies.push(lastAnswerAt - at);
          const id = /"id":"([^"]+)"/.exec(text)?.[1];
          if (id !== undefined) ids.push(id);
        } else failures++;
      } catch {
        failures++;
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  const elapsed = performance.now() - started;
  await agent.close();
  latencies.sort((a, b) => a - b);
  return {
    answers: latencies.length,
    failures,
    rate: (latencies.length * 1000) / elapsed,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    lastAnswerAt,
    ids,
  };
}
