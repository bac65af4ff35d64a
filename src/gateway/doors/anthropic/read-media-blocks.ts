import {
  base64DecodedBytes,
  type CacheMark,
  type FilePart,
  IMAGE_MEDIA_TYPES,
  type ImagePart,
  isPassableUrl,
  MAX_MEDIA_URL_CHARS,
  type MediaSource,
  type MediaTally,
  PDF_MEDIA_TYPE,
  type TextPart,
  type ThinkingPart,
} from '../../domain/content-parts.ts';
import {
  type FieldPath,
  invalidField,
  isObject,
  type JsonObject,
  readNonEmptyString,
  readObject,
  readString,
} from '../request-fields.ts';

/**
 * Anthropic's `image`, `document`, `thinking` and `redacted_thinking` blocks, and `cache_control`,
 * onto the gateway's content parts (domain/content-parts.ts). Sources: `base64` (checked as base64
 * and counted against the request's media bounds without being decoded), `url` (`https:`, passed on
 * to the upstream, never fetched here), and for documents `text` (read as text). A `file` source
 * (Anthropic's Files API) and citations have no counterpart on another vendor: a 400 naming them.
 */

export function readImageBlock(block: JsonObject, path: FieldPath, tally: MediaTally): ImagePart {
  const sourcePath = [...path, 'source'];
  const source = readObject(block.source, sourcePath);
  const part: ImagePart = { type: 'image', source: readMediaSource(source, sourcePath, tally, 'image') };
  const cache = readCacheMark(block, path);
  if (cache !== undefined) part.cache = cache;
  return part;
}

/** A PDF is a file part; a `text` source is text, as every vendor reads it. */
export function readDocumentBlock(
  block: JsonObject,
  path: FieldPath,
  tally: MediaTally,
): FilePart | TextPart {
  const citations = block.citations;
  if (isObject(citations) && citations.enabled === true) {
    throw invalidField([...path, 'citations'], 'not supported: citations are returned by Anthropic only');
  }
  const sourcePath = [...path, 'source'];
  const source = readObject(block.source, sourcePath);
  const cache = readCacheMark(block, path);
  if (source.type === 'text') {
    const text = readString(source.data, [...sourcePath, 'data']);
    const title = typeof block.title === 'string' && block.title !== '' ? `${block.title}\n\n` : '';
    const part: TextPart = { type: 'text', text: `${title}${text}` };
    if (cache !== undefined) part.cache = cache;
    return part;
  }
  const part: FilePart = { type: 'file', source: readMediaSource(source, sourcePath, tally, 'document') };
  if (typeof block.title === 'string' && block.title !== '') part.filename = block.title.slice(0, 256);
  if (cache !== undefined) part.cache = cache;
  return part;
}

function readMediaSource(
  source: JsonObject,
  path: FieldPath,
  tally: MediaTally,
  kind: 'image' | 'document',
): MediaSource {
  if (source.type === 'base64') {
    const mediaType = readString(source.media_type, [...path, 'media_type']);
    const allowed = kind === 'image' ? IMAGE_MEDIA_TYPES.has(mediaType) : mediaType === PDF_MEDIA_TYPE;
    if (!allowed) {
      const expected = kind === 'image' ? [...IMAGE_MEDIA_TYPES].join(', ') : PDF_MEDIA_TYPE;
      throw invalidField([...path, 'media_type'], `must be one of ${expected}`);
    }
    const data = readNonEmptyString(source.data, [...path, 'data']);
    const bytes = base64DecodedBytes(data);
    if (bytes === undefined) throw invalidField([...path, 'data'], 'must be base64 (standard alphabet)');
    const refused = tally.add(bytes);
    if (refused !== undefined) throw invalidField([...path, 'data'], refused);
    return { kind: 'base64', mediaType, data };
  }
  if (source.type === 'url') {
    const url = readNonEmptyString(source.url, [...path, 'url']);
    if (!isPassableUrl(url)) {
      throw invalidField(
        [...path, 'url'],
        `must be an https URL of at most ${MAX_MEDIA_URL_CHARS} characters`,
      );
    }
    const refused = tally.add(0);
    if (refused !== undefined) throw invalidField([...path, 'url'], refused);
    return kind === 'document' ? { kind: 'url', url, mediaType: PDF_MEDIA_TYPE } : { kind: 'url', url };
  }
  if (source.type === 'file') {
    throw invalidField([...path, 'type'], "not supported: 'file' sources live in Anthropic's Files API");
  }
  const expected = kind === 'image' ? "'base64' or 'url'" : "'base64', 'url' or 'text'";
  throw invalidField([...path, 'type'], `must be ${expected}`);
}

/** `cache_control: {type: 'ephemeral', ttl?}` on a block; anything else there is a 400. */
export function readCacheMark(block: JsonObject, path: FieldPath): CacheMark | undefined {
  const value = block.cache_control;
  if (value === undefined || value === null) return undefined;
  const control = readObject(value, [...path, 'cache_control']);
  if (control.type !== 'ephemeral')
    throw invalidField([...path, 'cache_control', 'type'], "must be 'ephemeral'");
  const ttl = control.ttl;
  if (ttl === undefined || ttl === null) return {};
  if (ttl !== '5m' && ttl !== '1h')
    throw invalidField([...path, 'cache_control', 'ttl'], "must be '5m' or '1h'");
  return { ttl };
}

/** An assistant's `thinking` or `redacted_thinking` block, kept with its signature for Anthropic. */
export function readThinkingBlock(block: JsonObject, path: FieldPath): ThinkingPart {
  if (block.type === 'redacted_thinking') {
    return {
      type: 'thinking',
      vendor: 'anthropic',
      text: '',
      redacted: readNonEmptyString(block.data, [...path, 'data']),
    };
  }
  const part: ThinkingPart = {
    type: 'thinking',
    vendor: 'anthropic',
    text: readString(block.thinking, [...path, 'thinking']),
  };
  if (block.signature !== undefined && block.signature !== null)
    part.signature = readString(block.signature, [...path, 'signature']);
  return part;
}
