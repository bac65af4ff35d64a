import {
  budgetForEffort,
  type ContentPart,
  type MediaPart,
  PDF_MEDIA_TYPE,
  type ReasoningRequest,
} from '../../domain/content-parts.ts';

/**
 * The gateway's content parts (domain/content-parts.ts) as Gemini parts: base64 media is
 * `inlineData` (`application/pdf` for a PDF), a URL is `fileData` with its `fileUri` (Gemini
 * fetches it; the gateway never does). Gemini's JSON takes `inlineData` and `inline_data` alike;
 * this adapter writes camelCase throughout. Thinking parts are left out (another vendor's
 * signature cannot be checked by Gemini; Gemini's own travel in its call ids), and so are cache
 * markers (Gemini caches by itself).
 */

export type GeminiMediaPart =
  | { inlineData: { mimeType: string; data: string } }
  | { fileData: { mimeType: string; fileUri: string } };

export type GeminiTextOrMedia = { text: string } | GeminiMediaPart;

export function toGeminiParts(parts: readonly ContentPart[]): GeminiTextOrMedia[] {
  const out: GeminiTextOrMedia[] = [];
  for (const part of parts) {
    // Gemini refuses empty text parts.
    if (part.type === 'text' && part.text !== '') out.push({ text: part.text });
    else if (part.type === 'image' || part.type === 'file') out.push(toGeminiMedia(part));
  }
  return out;
}

export function toGeminiMedia(part: MediaPart): GeminiMediaPart {
  const source = part.source;
  if (source.kind === 'base64') return { inlineData: { mimeType: source.mediaType, data: source.data } };
  const mimeType = part.type === 'file' ? PDF_MEDIA_TYPE : (source.mediaType ?? imageTypeOf(source.url));
  return { fileData: { mimeType, fileUri: source.url } };
}

const IMAGE_EXTENSIONS: Readonly<Record<string, string>> = {
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
};

/** `fileData` needs a type: the URL path's extension says it, else JPEG (the commonest photo type). */
function imageTypeOf(url: string): string {
  const path = url.split(/[?#]/, 1)[0] ?? '';
  const extension = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return IMAGE_EXTENSIONS[extension] ?? 'image/jpeg';
}

/** Gemini models before 2.5 do not think and refuse a `thinkingConfig` with a 400. */
const NO_THINKING_MODELS = /^(models\/)?gemini-(1\.|2\.0-)/i;

/**
 * `generationConfig.thinkingConfig` for the request's reasoning: the effort's budget (CONTRACT
 * 5.9), within every thinking model's range (2.5 Pro 128–32,768, Flash 0–24,576); undefined for a
 * model that does not think.
 */
export function toThinkingConfig(
  model: string,
  reasoning: ReasoningRequest,
): { thinkingBudget: number } | undefined {
  if (NO_THINKING_MODELS.test(model)) return undefined;
  return { thinkingBudget: budgetForEffort(reasoning.effort) };
}
