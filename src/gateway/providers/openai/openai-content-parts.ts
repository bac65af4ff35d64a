import {
  type ContentPart,
  isMediaPart,
  type MediaPart,
  type ReasoningRequest,
  toDataUrl,
} from '../../domain/content-parts.ts';

/**
 * The gateway's content parts (domain/content-parts.ts) in Chat Completions' form: an image is an
 * `image_url` part (a data URL for base64, or the URL as given: the upstream fetches it), a PDF a
 * `file` part with `file_data` (a data URL) and a `filename`. Chat Completions has no file URL,
 * so a PDF given by URL is passed as text naming the URL. Thinking parts are left out: no other
 * vendor's signature can be checked by OpenAI (CONTRACT 5.2), and cache markers are never sent
 * (OpenAI caches prefixes by itself, keyed by `prompt_cache_key`).
 */

export type OpenAIContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } }
  | { type: 'file'; file: { file_data: string; filename: string } };

/** What a file part is called when the client gave no name: OpenAI wants one with `file_data`. */
const DEFAULT_FILENAME = 'document.pdf';

export function toOpenAIParts(parts: readonly ContentPart[]): OpenAIContentPart[] {
  const out: OpenAIContentPart[] = [];
  for (const part of parts) {
    if (part.type === 'text') out.push({ type: 'text', text: part.text });
    else if (isMediaPart(part)) out.push(toOpenAIMedia(part));
  }
  return out;
}

function toOpenAIMedia(part: MediaPart): OpenAIContentPart {
  if (part.type === 'image') {
    const image: { url: string; detail?: 'auto' | 'low' | 'high' } = { url: toDataUrl(part.source) };
    if (part.detail !== undefined) image.detail = part.detail;
    return { type: 'image_url', image_url: image };
  }
  if (part.source.kind === 'url') return { type: 'text', text: `Document: ${part.source.url}` };
  return {
    type: 'file',
    file: { file_data: toDataUrl(part.source), filename: part.filename ?? DEFAULT_FILENAME },
  };
}

/** The media of a message's parts (a tool result's images, which a `tool` message cannot hold). */
export function mediaOf(parts: readonly ContentPart[] | undefined): MediaPart[] {
  return parts === undefined ? [] : parts.filter(isMediaPart);
}

/**
 * OpenAI's chat models before the reasoning ones refuse `reasoning_effort` with a 400, where
 * OpenAI-compatible servers ignore a field they do not know; these names are left without it.
 */
const NO_REASONING_MODELS = /^(gpt-4|gpt-3\.5|chatgpt-)/i;

/** `reasoning_effort` for the request's reasoning (CONTRACT 5.2), or undefined for a model that takes none. */
export function reasoningEffortFor(
  model: string,
  reasoning: ReasoningRequest | undefined,
): ReasoningRequest['effort'] | undefined {
  if (reasoning === undefined) return undefined;
  const name = model.slice(model.lastIndexOf('/') + 1);
  return NO_REASONING_MODELS.test(name) ? undefined : reasoning.effort;
}
