import type { GeminiTransport } from '../gemini/gemini-relay.ts';
import type { VertexCaller } from './vertex-caller.ts';

/**
 * The Gemini door's same-vendor lane onto Vertex AI (CONTRACT 6.3, 6.4): a Gemini model's
 * `publishers/google/models/{m}:generateContent`, `:streamGenerateContent?alt=sse` and
 * `:countTokens` under the slot's project and location, with the slot's bearer token (the
 * caller's), the client's bytes as the body: Vertex takes the Gemini API's GenerateContentRequest.
 * `model` is Vertex's name already (the slot's model map applied).
 */
export function vertexGeminiTransport(
  caller: VertexCaller,
  mapModel: (model: string) => string,
): GeminiTransport {
  const path = (model: string, method: string) =>
    `${caller.publishers}/google/models/${encodeURIComponent(mapModel(model))}:${method}`;
  return {
    slot: caller.slot,
    send: (model, method, body, context) => caller.send(path(model, method), { written: body }, context),
    openEvents: (model, body, context) =>
      caller.openEvents(`${path(model, 'streamGenerateContent')}?alt=sse`, { written: body }, context),
    parseJson: (response) => caller.http.parseJson(response),
  };
}
