import { ApiError } from '../../../platform/errors.ts';

/** The methods of a model resource the door serves. */
export const GEMINI_METHODS = [
  'generateContent',
  'streamGenerateContent',
  'countTokens',
  'embedContent',
  'batchEmbedContents',
] as const;

export type GeminiMethod = (typeof GEMINI_METHODS)[number];

/**
 * `{model}:{method}`, the rest of a `/v1beta/models/` path: the model as the other doors address
 * it (a name, a route, a task, or `<slot>/<model>`, whose `/` Google's SDKs leave in the path), and
 * the method after the last `:`. An unknown method is Google's 404.
 */
export function readModelMethod(rest: string): { model: string; method: GeminiMethod } {
  const colon = rest.lastIndexOf(':');
  const method = colon === -1 ? '' : rest.slice(colon + 1);
  const model = colon === -1 ? rest : rest.slice(0, colon);
  if (!(GEMINI_METHODS as readonly string[]).includes(method) || model === '')
    throw new ApiError('not_found', `no method '${method.slice(0, 64)}' on models/${model.slice(0, 128)}`);
  return { model, method: method as GeminiMethod };
}
