import { Agent, request } from 'node:http';
import { TOKEN_PATTERN } from './agent-scenarios.ts';
import { type LatencySummary, summarise } from './latency-stats.ts';
import type { HttpRequestSpec } from './scenarios.ts';

export interface PacedResult {
  streams: number;
  failures: number;
  /** Request sent to the first read that holds a token (not the first byte: a door may write a start event at once). */
  firstToken: LatencySummary;
  /** Between successive reads that hold tokens, over every stream. */
  tokenGap: LatencySummary;
  /** Request sent to the stream's last byte. */
  end: LatencySummary;
}

/**
 * `connections` closed loops of streamed requests for `seconds`, timing what an agent's user
 * sees: the first token, and the gaps between tokens (a proxy that holds chunks back, or whose
 * event loop is busy with another stream, widens them).
 */
export async function runPacedStreams(options: {
  port: number;
  spec: HttpRequestSpec & { endMarker: string };
  connections: number;
  seconds: number;
  /** What a read holding a token looks like (a hold-back window joins tokens into one delta). */
  tokenPattern?: RegExp;
}): Promise<PacedResult> {
  const tokenPattern = options.tokenPattern ?? TOKEN_PATTERN;
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const firstTokens: number[] = [];
  const gaps: number[] = [];
  const ends: number[] = [];
  let failures = 0;
  const deadline = performance.now() + options.seconds * 1000;
  const length = Buffer.byteLength(options.spec.body);

  const once = () =>
    new Promise<void>((resolve) => {
      const sent = performance.now();
      let first = 0;
      let previous = 0;
      const streamGaps: number[] = [];
      let tail = '';
      const fail = () => {
        failures++;
        resolve();
      };
      const req = request(
        {
          host: '127.0.0.1',
          port: options.port,
          method: 'POST',
          path: options.spec.path,
          headers: { ...options.spec.headers, 'content-length': length },
          agent,
        },
        (res) => {
          res.on('data', (chunk: Buffer) => {
            const now = performance.now();
            const text = chunk.toString('latin1');
            if (tokenPattern.test(text)) {
              if (first === 0) first = now;
              else streamGaps.push(now - previous);
              previous = now;
            }
            // The last event can be long: the Responses door's response.completed holds the whole response.
            tail = (tail + text).slice(-16_384);
          });
          res.on('end', () => {
            if (res.statusCode !== 200 || first === 0 || !tail.includes(options.spec.endMarker))
              return fail();
            firstTokens.push(first - sent);
            ends.push(performance.now() - sent);
            gaps.push(...streamGaps);
            resolve();
          });
          res.on('error', fail);
        },
      );
      req.on('error', fail);
      req.end(options.spec.body);
    });

  const loop = async () => {
    while (performance.now() < deadline) await once();
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  agent.destroy();
  return {
    streams: firstTokens.length,
    failures,
    firstToken: summarise(firstTokens),
    tokenGap: summarise(gaps),
    end: summarise(ends),
  };
}
