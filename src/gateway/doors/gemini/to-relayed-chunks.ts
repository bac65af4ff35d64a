import { addToTopLevelObject } from '../../domain/json-splice.ts';
import type { RelayOut } from '../../services/run/pass-through-stream.ts';
import { toGeminiStreamError } from './gemini-error-body.ts';

/**
 * A relayed stream (the same-vendor lane, CONTRACT 6.3) in the client's framing: each chunk's
 * JSON as Google sent it, as an SSE `data:` line or an element of the JSON array, but the last
 * chunk, whose `usageMetadata` gains `costUsd` (6.9), spliced into its text. A failure Google did
 * not announce with an error chunk of its own ends the stream with the gateway's, in Google's shape.
 */
export async function* toRelayedChunks(
  events: AsyncGenerator<RelayOut, void, undefined>,
  framing: { sse: boolean },
): AsyncGenerator<string, string, undefined> {
  let first = true;
  const frame = (json: string): string => {
    if (framing.sse) return `data: ${json}\r\n\r\n`;
    const written = `${first ? '[' : ',\r\n'}${json}`;
    first = false;
    return written;
  };
  for await (const out of events) {
    if (out.kind === 'error') {
      yield frame(JSON.stringify(toGeminiStreamError(out.error)));
      continue;
    }
    let data = out.data;
    if (out.costUsd !== undefined)
      data = addToTopLevelObject(data, 'usageMetadata', 'costUsd', JSON.stringify(out.costUsd)) ?? data;
    yield frame(data);
  }
  return framing.sse ? '' : `${first ? '[' : ''}]`;
}

/** A kept whole answer replayed as a stream of one chunk, in the client's framing (cost 0). */
export async function* replayRelayedAnswer(
  message: string,
  framing: { sse: boolean },
): AsyncGenerator<string, string, undefined> {
  const data = addToTopLevelObject(message, 'usageMetadata', 'costUsd', '0') ?? message;
  yield framing.sse ? `data: ${data}\r\n\r\n` : `[${data}`;
  return framing.sse ? '' : ']';
}
