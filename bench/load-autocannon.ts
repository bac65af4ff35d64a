import autocannon from 'autocannon';
import { type LatencySummary, summarise } from './latency-stats.ts';
import type { HttpRequestSpec } from './scenarios.ts';

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  latency: LatencySummary;
  failures: number;
}

export interface LoadOptions {
  port: number;
  spec: HttpRequestSpec;
  connections: number;
  seconds: number;
}

/**
 * A closed-loop run with autocannon, bounded in time. Autocannon's own histogram keeps whole
 * milliseconds, too coarse for sub-millisecond overheads, so every response time (a float from
 * process.hrtime) is collected here instead.
 */
export function runAutocannon(options: LoadOptions): Promise<LoadResult> {
  const samples: number[] = [];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${options.port}${options.spec.path}`,
        method: 'POST',
        headers: options.spec.headers,
        body: options.spec.body,
        connections: options.connections,
        duration: options.seconds,
        timeout: 10,
      },
      (error, result) => {
        if (error !== null) {
          reject(error);
          return;
        }
        const seconds = (performance.now() - started) / 1000;
        resolve({
          requests: result['2xx'],
          seconds,
          rps: result['2xx'] / seconds,
          latency: summarise(samples),
          failures: result.errors + result.timeouts + result.non2xx,
        });
      },
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) samples.push(ms);
    });
  });
}
