import { Agent, request } from 'node:http';
import { type LatencySummary, summarise } from './latency-stats.ts';
import type { HttpRequestSpec } from './scenarios.ts';

export interface StreamResult {
  requests: number;
  seconds: number;
  rps: number;
  /** Request sent to first body byte (the first event). */
  firstByte: LatencySummary;
  /** Request sent to the end of the stream. */
  total: LatencySummary;
  /** Mean number of body chunks per stream (HTTP chunks: a proxy that re-chunks shows its own count). */
  readsPerStream: number;
  /**
   * First to last body chunk of a stream: as long as the upstream's when chunks are passed on
   * as they arrive, near zero when something holds them back and sends them together.
   */
  spread: LatencySummary;
  failures: number;
}

export interface StreamOptions {
  port: number;
  spec: HttpRequestSpec;
  connections: number;
  seconds: number;
  /** Text the last part of a complete stream contains (`[DONE]` upstream, `event: done` from the gateway). */
  endMarker: string;
}

/**
 * Autocannon cannot time the first byte of a response, so streams are driven by this small
 * closed-loop client: `connections` loops over keep-alive sockets, each sending the next request
 * when its stream ends, until the time is up. Each stream's bytes are checked for a proper end.
 */
export async function runStreams(options: StreamOptions): Promise<StreamResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const firstBytes: number[] = [];
  const totals: number[] = [];
  const spreads: number[] = [];
  let reads = 0;
  let failures = 0;
  const started = performance.now();
  const deadline = started + options.seconds * 1000;

  const once = () =>
    new Promise<void>((resolve) => {
      const sent = performance.now();
      let first = 0;
      let last = 0;
      let count = 0;
      let tail = '';
      const req = request(
        {
          host: '127.0.0.1',
          port: options.port,
          method: 'POST',
          path: options.spec.path,
          headers: { ...options.spec.headers, 'content-length': Buffer.byteLength(options.spec.body) },
          agent,
        },
        (res) => {
          res.on('data', (chunk: Buffer) => {
            last = performance.now();
            if (count++ === 0) first = last;
            // Only the end of the stream is checked; keep the last bytes.
            tail = (tail + chunk.toString('latin1')).slice(-512);
          });
          res.on('end', () => {
            const ended = performance.now();
            if (res.statusCode === 200 && tail.includes(options.endMarker)) {
              firstBytes.push(first - sent);
              totals.push(ended - sent);
              spreads.push(last - first);
              reads += count;
            } else failures++;
            resolve();
          });
          res.on('error', () => {
            failures++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        failures++;
        resolve();
      });
      req.end(options.spec.body);
    });

  const loop = async () => {
    while (performance.now() < deadline) await once();
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return {
    requests: totals.length,
    seconds,
    rps: totals.length / seconds,
    firstByte: summarise(firstBytes),
    total: summarise(totals),
    readsPerStream: totals.length === 0 ? 0 : reads / totals.length,
    spread: summarise(spreads),
    failures,
  };
}
