import { KEEP_ALIVE_COMMENT } from '../../http/write-event-stream.ts';
import type { ChatDoor, PassThrough } from '../chat-door.ts';
import { costHeaderOf } from '../cost-header.ts';
import { JSON_TEXT } from '../serve-run.ts';
import { GEMINI_KEEPER } from './gemini-answer-keeper.ts';
import { laneBytesOf, rawGeminiBodyOf } from './raw-gemini-body.ts';
import { type GeminiRequest, readGeminiRequest } from './read-gemini-request.ts';
import { readRelayFieldsBytes } from './read-relay-fields-bytes.ts';
import { toGeminiChunks } from './to-gemini-chunks.ts';
import { toGeminiResponse } from './to-gemini-response.ts';
import { replayRelayedAnswer, toRelayedChunks } from './to-relayed-chunks.ts';

/** The header naming the fields left out on the cross-vendor lane (CONTRACT 6.3, 6.9). */
export const IGNORED_FIELDS_HEADER = 'x-gateway-ignored-fields';

/** A JSON-array stream (no `?alt=sse`) is JSON, as Google's is. */
const JSON_TYPE = 'application/json; charset=utf-8';

/** What the path and query say of a generateContent request: its model, whether streamed and how. */
export interface GenerateTarget {
  model: string;
  stream: boolean;
  sse: boolean;
}

/**
 * `POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent` (CONTRACT 6.3): a
 * GenerateContentRequest onto the chat use case (or the structured-output one, for a JSON
 * `responseMimeType` with a schema), answered as a GenerateContentResponse with the cost in
 * `x-gateway-cost-usd`, or its chunks (SSE, or a JSON array written as it is produced) with the
 * cost in the last chunk's `usageMetadata.costUsd`. Its same-vendor lane (`passThrough`, unless
 * `lane` is false): an attempt on a `gemini` slot gets the client's bytes untouched (the model is
 * in the path) and the client Google's answer with the cost added. The model and the framing are
 * in the path and query, so the description is made per request.
 */
export function geminiChat(target: GenerateTarget, lane = true): ChatDoor<GeminiRequest> {
  const door: ChatDoor<GeminiRequest> = {
    frontDoor: 'gemini',
    read: (body) => {
      const read = readGeminiRequest(body, target.model, target.stream, target.sse);
      // On the lane, structured output is Google's to enforce; an attempt that fell over to another
      // kind answers it as a chat (the lane's use case has no schema to validate against).
      if (!lane || read.use === 'chat') return read;
      const { messages, temperature } = read.input;
      return { ...read, use: 'chat', input: { messages, temperature } };
    },
    renameFault: (error) => error,
    headers: (_context, request) => {
      const headers: Record<string, string> = {};
      if (request !== undefined && request.ignored.length > 0)
        headers[IGNORED_FIELDS_HEADER] = request.ignored.join(',');
      if (target.stream && !target.sse) headers['content-type'] = JSON_TYPE;
      return headers;
    },
    answer: (answer) => ({
      headers: costHeaderOf(answer.usage.estimatedCost),
      body: toGeminiResponse(answer),
    }),
    frames: (stream) => toGeminiChunks(stream, { sse: target.sse }),
    // Whitespace between a JSON array's elements is still JSON; a comment is not.
    keepAlive: target.sse ? KEEP_ALIVE_COMMENT : '\n',
  };
  if (lane) door.passThrough = geminiPassThrough(target);
  return door;
}

/** The same-vendor lane, described (the upstream side is the gemini adapter's `relay`). */
function geminiPassThrough(target: GenerateTarget): PassThrough {
  return {
    // A vertex slot relays a Gemini model's request (its Claude models' go by the Anthropic door).
    slotKinds: ['gemini', 'vertex'],
    wire: 'gemini',
    read: (request) => {
      // A body an input guard masked is read (and sent) as the gateway writes it (CONTRACT 6.6).
      const bytes = laneBytesOf(request);
      return {
        ...readRelayFieldsBytes(bytes),
        bytes,
        model: target.model,
        stream: target.stream,
        metadata: undefined,
        session: {},
      };
    },
    bytes: rawGeminiBodyOf,
    // None of the client's headers go: the slot's key is the adapter's, and the model is in the path.
    forwardedHeaders: [],
    // guard-relay.ts reads Anthropic's events, not Google's chunks: an output guard takes the translated way.
    outputGuardable: false,
    answer: (text, costUsd) => ({
      headers: costHeaderOf(costUsd),
      body: text,
      contentType: JSON_TEXT,
    }),
    frames: (events) => toRelayedChunks(events, target),
    keeper: GEMINI_KEEPER,
    replay: (message) => replayRelayedAnswer(message, target),
  };
}
