import { KEEP_ALIVE_COMMENT } from '../../http/write-event-stream.ts';
import type { ChatDoor } from '../chat-door.ts';
import { COST_HEADER, formatUsd } from '../cost-header.ts';
import { type GeminiRequest, readGeminiRequest } from './read-gemini-request.ts';
import { toGeminiChunks } from './to-gemini-chunks.ts';
import { toGeminiResponse } from './to-gemini-response.ts';

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
 * `POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent` on the cross-vendor
 * lane (CONTRACT 6.3): a GenerateContentRequest onto the chat use case (or the structured-output
 * one, for a JSON `responseMimeType` with a schema), answered as a GenerateContentResponse with the
 * cost in `x-gateway-cost-usd`, or its chunks (SSE, or a JSON array written as it is produced) with
 * the cost in the last chunk's `usageMetadata.costUsd`. The model is in the path, so the door's
 * description is made per request.
 */
export function geminiChat(target: GenerateTarget): ChatDoor<GeminiRequest> {
  return {
    frontDoor: 'gemini',
    read: (body) => readGeminiRequest(body, target.model, target.stream, target.sse),
    renameFault: (error) => error,
    headers: (_context, request) => {
      const headers: Record<string, string> = {};
      if (request !== undefined && request.ignored.length > 0)
        headers[IGNORED_FIELDS_HEADER] = request.ignored.join(',');
      if (target.stream && !target.sse) headers['content-type'] = JSON_TYPE;
      return headers;
    },
    answer: (answer) => ({
      headers: { [COST_HEADER]: formatUsd(answer.usage.estimatedCost) },
      body: toGeminiResponse(answer),
    }),
    frames: (stream) => toGeminiChunks(stream, { sse: target.sse }),
    // Whitespace between a JSON array's elements is still JSON; a comment is not.
    keepAlive: target.sse ? KEEP_ALIVE_COMMENT : '\n',
  };
}
