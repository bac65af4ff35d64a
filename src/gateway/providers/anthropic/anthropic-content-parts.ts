import {
  type CacheMark,
  type ContentPart,
  type MediaPart,
  PDF_MEDIA_TYPE,
  type ThinkingPart,
} from '../../domain/content-parts.ts';

/**
 * The gateway's content parts (domain/content-parts.ts) as Messages API blocks, for the
 * cross-vendor path of an Anthropic slot (OpenAI-door, Responses or native requests, and a fallback
 * from another slot kind): images as `image` blocks and PDFs as `document` blocks (base64 or URL
 * sources), cache markers as `cache_control`, and Anthropic's own thinking blocks with their
 * signatures, byte for byte. Thinking another vendor made is left out: Anthropic cannot check its
 * signature (CONTRACT 5.2).
 */

type CacheControl = { type: 'ephemeral'; ttl?: '5m' | '1h' };

type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

type ImageSource =
  | { type: 'base64'; media_type: ImageMediaType; data: string }
  | { type: 'url'; url: string };
type DocumentSource =
  | { type: 'base64'; media_type: 'application/pdf'; data: string }
  | { type: 'url'; url: string };

export type AnthropicContentBlock =
  | { type: 'text'; text: string; cache_control?: CacheControl }
  | { type: 'image'; source: ImageSource; cache_control?: CacheControl }
  | { type: 'document'; source: DocumentSource; title?: string; cache_control?: CacheControl };

export type AnthropicThinkingBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

export function toAnthropicContent(parts: readonly ContentPart[]): AnthropicContentBlock[] {
  const blocks: AnthropicContentBlock[] = [];
  for (const part of parts) {
    let block: AnthropicContentBlock;
    if (part.type === 'text') {
      // Anthropic refuses empty text blocks.
      if (part.text === '') continue;
      block = { type: 'text', text: part.text };
    } else if (part.type === 'image' || part.type === 'file') block = toMediaBlock(part);
    else continue;
    const cache = toCacheControl(part.cache);
    if (cache !== undefined) block.cache_control = cache;
    blocks.push(block);
  }
  return blocks;
}

function toMediaBlock(part: MediaPart): AnthropicContentBlock {
  const source = part.source;
  // The doors admit only the types Anthropic takes (IMAGE_MEDIA_TYPES, PDF_MEDIA_TYPE).
  if (part.type === 'image') {
    return source.kind === 'base64'
      ? {
          type: 'image',
          source: { type: 'base64', media_type: source.mediaType as ImageMediaType, data: source.data },
        }
      : { type: 'image', source: { type: 'url', url: source.url } };
  }
  const block: AnthropicContentBlock =
    source.kind === 'base64'
      ? { type: 'document', source: { type: 'base64', media_type: PDF_MEDIA_TYPE, data: source.data } }
      : { type: 'document', source: { type: 'url', url: source.url } };
  if (part.filename !== undefined) block.title = part.filename;
  return block;
}

function toCacheControl(mark: CacheMark | undefined): CacheControl | undefined {
  if (mark === undefined) return undefined;
  return mark.ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: mark.ttl };
}

/** An assistant message's own thinking blocks: Anthropic's, signed or redacted; any other vendor's left out. */
export function toAnthropicThinking(parts: readonly ContentPart[] | undefined): AnthropicThinkingBlock[] {
  const blocks: AnthropicThinkingBlock[] = [];
  for (const part of parts ?? []) {
    if (part.type !== 'thinking' || part.vendor !== 'anthropic') continue;
    const block = thinkingBlock(part);
    if (block !== undefined) blocks.push(block);
  }
  return blocks;
}

function thinkingBlock(part: ThinkingPart): AnthropicThinkingBlock | undefined {
  if (part.redacted !== undefined) return { type: 'redacted_thinking', data: part.redacted };
  // Anthropic refuses a thinking block without its signature.
  if (part.signature === undefined || part.signature === '') return undefined;
  return { type: 'thinking', thinking: part.text, signature: part.signature };
}
