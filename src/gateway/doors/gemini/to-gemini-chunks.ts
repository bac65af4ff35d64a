import type { ThinkingPart } from '../../domain/content-parts.ts';
import type { ChatStream } from '../../services/use-cases/run-chat-stream.ts';
import { toGeminiStreamError } from './gemini-error-body.ts';
import { encodeThoughtToken } from './thought-token.ts';
import { finishReasonOf, functionCallPart, thoughtParts, toUsageMetadata } from './to-gemini-response.ts';

type Part = Record<string, unknown>;

/**
 * How a stream is framed: `?alt=sse` is server-sent events, one GenerateContentResponse per
 * `data:` line; without it Google writes one JSON array, its elements sent as they are produced.
 */
export interface ChunkFraming {
  sse: boolean;
}

/**
 * The chat stream as streamGenerateContent's chunks (CONTRACT 6.3): each text delta, thought and
 * call a chunk of its own, the last chunk with the finish reason and usageMetadata, the request's
 * cost in its `costUsd` (6.9). A thinking block's token (to-gemini-response.ts) goes on the first
 * call that follows it, else on an empty text part of the last chunk. A failure after the first
 * chunk ends the stream with Google's error object, as its API ends a broken stream.
 */
export async function* toGeminiChunks(
  stream: ChatStream,
  framing: ChunkFraming,
): AsyncGenerator<string, string, undefined> {
  const base = { modelVersion: stream.start.model, responseId: stream.start.id };
  let first = true;
  const frame = (value: unknown): string => {
    const json = JSON.stringify(value);
    if (framing.sse) return `data: ${json}\r\n\r\n`;
    const written = `${first ? '[' : ',\r\n'}${json}`;
    first = false;
    return written;
  };
  const close = (last: string): string => (framing.sse ? last : `${last}${first ? '[' : ''}]`);
  const chunk = (parts: Part[], extra: Record<string, unknown> = {}) => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
    ...base,
  });
  // The signed thinking not yet handed out: its token goes on the next call, or on the last chunk.
  const pending: ThinkingPart[] = [];
  for await (const event of stream.events) {
    switch (event.event) {
      case 'delta':
        if (event.data.content !== '') yield frame(chunk([{ text: event.data.content }]));
        break;
      case 'thinking': {
        const thoughts = thoughtParts([event.data]);
        pending.push(event.data);
        if (thoughts.parts.length > 0) yield frame(chunk(thoughts.parts));
        break;
      }
      case 'tool_call': {
        const part = functionCallPart(event.data);
        if (pending.length > 0) part['thoughtSignature'] = encodeThoughtToken(pending);
        pending.length = 0;
        yield frame(chunk([part]));
        break;
      }
      case 'done': {
        const answer = event.data;
        const parts: Part[] =
          pending.length === 0 ? [] : [{ text: '', thoughtSignature: encodeThoughtToken(pending) }];
        return close(
          frame({
            ...chunk(parts, { finishReason: finishReasonOf(answer.finishReason) }),
            usageMetadata: toUsageMetadata(answer.usage),
          }),
        );
      }
      case 'error':
        return close(frame(toGeminiStreamError(event.data)));
    }
  }
  return close('');
}
