/**
 * What a message holds besides plain text, in the gateway's words (CONTRACT 5.2, the cross-vendor
 * lane): images, files (PDF), and the thinking an assistant turn carried. Every door reads its
 * own wire format onto these parts (Anthropic `image`/`document`/`thinking` blocks, OpenAI
 * `image_url`/`file` parts, the Responses API's `input_image`/`input_file`/`reasoning` items) and
 * every adapter writes them in its vendor's format. The native API has no parts: its messages are
 * text, as the contract says.
 *
 * A message with parts keeps `content` as the text of its text parts, joined, so that everything
 * that reads text alone (token counts, limits, the simulator's reply) goes on reading it; the parts
 * are the message's whole content, in order, for the adapters.
 */

/**
 * Where media comes from: its bytes as base64 with their media type, or a URL the upstream
 * fetches (`https:` only; the gateway never fetches a URL itself).
 */
export type MediaSource =
  | { kind: 'base64'; mediaType: string; data: string }
  | { kind: 'url'; url: string; mediaType?: string | undefined };

/**
 * A prompt-cache marker (Anthropic's `cache_control`). Kept where a client wrote it so that an
 * Anthropic upstream gets it back; the other vendors cache by themselves and never see it.
 */
export interface CacheMark {
  ttl?: '5m' | '1h' | undefined;
}

export interface TextPart {
  type: 'text';
  text: string;
  cache?: CacheMark | undefined;
}

export interface ImagePart {
  type: 'image';
  source: MediaSource;
  /** OpenAI's `detail` (`auto`, `low`, `high`); other vendors have none. */
  detail?: 'auto' | 'low' | 'high' | undefined;
  cache?: CacheMark | undefined;
}

/** A PDF document (text documents are read as text parts). */
export interface FilePart {
  type: 'file';
  source: MediaSource;
  filename?: string | undefined;
  cache?: CacheMark | undefined;
}

/** Who wrote a thinking part: its signature can be checked only by that vendor. */
export type ThinkingVendor = 'anthropic' | 'gemini' | 'openai';

/**
 * An assistant turn's thinking, as the vendor that made it gave it: Anthropic's `thinking` block
 * (its text and `signature`) or `redacted_thinking` (`redacted`, the encrypted data). Sent back only
 * to the vendor that made it; every other vendor gets the turn without it (CONTRACT 5.2).
 */
export interface ThinkingPart {
  type: 'thinking';
  vendor: ThinkingVendor;
  text: string;
  signature?: string | undefined;
  /** Set for a redacted block: its opaque data (then `text` is empty). */
  redacted?: string | undefined;
}

export type ContentPart = TextPart | ImagePart | FilePart | ThinkingPart;
export type MediaPart = ImagePart | FilePart;

export const PDF_MEDIA_TYPE = 'application/pdf' as const;

/** The image types every vendor of the gateway takes (Anthropic's list, which is the smallest). */
export const IMAGE_MEDIA_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
]);

/**
 * Bounds on the media a stranger may send in one request. 32 MiB of decoded bytes is Anthropic's
 * whole-request limit (OpenAI takes 50 MB of images, Gemini 20 MB inline), so no vendor is asked
 * for more than it may take; 100 items is Anthropic's image count per request. The body limit
 * (`MAX_BODY_BYTES`, 4 MiB by default) usually binds first.
 */
export const MAX_MEDIA_BYTES_PER_REQUEST = 32 * 1024 * 1024;
export const MAX_MEDIA_PARTS_PER_REQUEST = 100;
/** A URL is passed on, never fetched; a longer one is not a real image address. */
export const MAX_MEDIA_URL_CHARS = 8192;

export function isMediaPart(part: ContentPart): part is MediaPart {
  return part.type === 'image' || part.type === 'file';
}

/** The text of a message's text parts, joined as a door joins several text blocks. */
export function partsText(parts: readonly ContentPart[], separator = '\n\n'): string {
  const texts: string[] = [];
  for (const part of parts) if (part.type === 'text') texts.push(part.text);
  return texts.join(separator);
}

/** Whether the parts say more than their text: media or thinking. */
export function hasRichParts(parts: readonly ContentPart[] | undefined): boolean {
  return parts?.some((part) => part.type !== 'text') === true;
}

/** A base64 source as a data URL (`data:<type>;base64,<data>`), as OpenAI's parts take it. */
export function toDataUrl(source: MediaSource): string {
  return source.kind === 'url' ? source.url : `data:${source.mediaType};base64,${source.data}`;
}

const BASE64_BODY = /^[A-Za-z0-9+/]*$/;

/**
 * The number of bytes base64 text decodes to, or undefined when it is not base64 (standard
 * alphabet, padding only at the end, length a multiple of 4 once padded). Checked without decoding,
 * so a large payload costs one pass and no copy.
 */
export function base64DecodedBytes(data: string): number | undefined {
  let end = data.length;
  let padding = 0;
  while (end > 0 && data.charCodeAt(end - 1) === 61 /* = */ && padding < 2) {
    end--;
    padding++;
  }
  if ((end + padding) % 4 !== 0 && padding > 0) return undefined;
  if (end % 4 === 1) return undefined;
  if (!BASE64_BODY.test(data.slice(0, end))) return undefined;
  return Math.floor((end * 3) / 4);
}

/** A `data:<type>;base64,<data>` URL split into its type and data; undefined for any other URL. */
export function readDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)(?:;[a-z0-9-]+=[^;,]*)*;base64,/i.exec(url.slice(0, 256));
  if (match === null) return undefined;
  return { mediaType: (match[1] as string).toLowerCase(), data: url.slice(match[0].length) };
}

/** Whether a URL may be given to an upstream: `https:`, bounded, well formed. */
export function isPassableUrl(url: string): boolean {
  if (url.length > MAX_MEDIA_URL_CHARS || !url.startsWith('https://')) return false;
  try {
    new URL(url);
    return true;
  } catch {
    return false;
  }
}

/**
 * What a request asks of the model's thinking (CONTRACT 5.2, 5.9): an effort, and the token budget
 * when the client gave one (Anthropic's `budget_tokens`). Each adapter writes it in its vendor's
 * form: OpenAI's `reasoning_effort`, Gemini's `thinkingBudget`, Anthropic's `thinking`.
 */
export type ReasoningEffort = 'low' | 'medium' | 'high';

export interface ReasoningRequest {
  effort: ReasoningEffort;
  budgetTokens?: number | undefined;
}

/** CONTRACT 5.2: a budget below 4,096 is low, below 16,384 medium, else high. */
export function effortForBudget(budgetTokens: number): ReasoningEffort {
  if (budgetTokens < 4096) return 'low';
  if (budgetTokens < 16384) return 'medium';
  return 'high';
}

const BUDGET_FOR_EFFORT: Readonly<Record<ReasoningEffort, number>> = { low: 2048, medium: 8192, high: 24576 };

/** CONTRACT 5.9: an effort as a budget (Anthropic `budget_tokens`, Gemini `thinkingBudget`). */
export function budgetForEffort(effort: ReasoningEffort): number {
  return BUDGET_FOR_EFFORT[effort];
}

/**
 * The media of one request, counted as a door reads it, against the bounds above. `add` answers
 * why an item is refused, or undefined when it fits.
 */
export class MediaTally {
  #bytes = 0;
  #count = 0;

  add(decodedBytes: number): string | undefined {
    this.#count++;
    this.#bytes += decodedBytes;
    if (this.#count > MAX_MEDIA_PARTS_PER_REQUEST)
      return `a request may carry at most ${MAX_MEDIA_PARTS_PER_REQUEST} images and files`;
    if (this.#bytes > MAX_MEDIA_BYTES_PER_REQUEST)
      return `the images and files of a request may hold at most ${MAX_MEDIA_BYTES_PER_REQUEST / (1024 * 1024)} MiB (decoded)`;
    return undefined;
  }
}
