import {
  base64DecodedBytes,
  type ContentPart,
  type FilePart,
  IMAGE_MEDIA_TYPES,
  type ImagePart,
  isPassableUrl,
  MAX_MEDIA_URL_CHARS,
  type MediaSource,
  type MediaTally,
  PDF_MEDIA_TYPE,
  type ReasoningRequest,
  readDataUrl,
} from '../../domain/content-parts.ts';
import { refuseField } from './openai-refusal.ts';

/**
 * A user message's content parts on the OpenAI door onto the gateway's content parts
 * (domain/content-parts.ts): `text`; `image_url` with a data URL (checked as base64 and counted
 * against the request's media bounds, never decoded) or an `https:` URL (passed on, never fetched
 * here), and its `detail`; `file` with `file_data` (a PDF, as a data URL or bare base64) and its
 * `filename`. A `file_id` (OpenAI's Files API) and audio have no counterpart on other vendors: a
 * 400 naming the part.
 */

type RawPart = { type: string } & Record<string, unknown>;

const DETAILS: ReadonlySet<string> = new Set(['auto', 'low', 'high']);

export function readUserParts(content: readonly RawPart[], at: string, tally: MediaTally): ContentPart[] {
  return content.map((part, index) => {
    const where = `${at}/content/${index}`;
    if (part.type === 'text') {
      if (typeof part.text !== 'string') throw refuseField(where, "must have required property 'text'");
      return { type: 'text', text: part.text };
    }
    if (part.type === 'image_url') return readImageUrl(part.image_url, `${where}/image_url`, tally);
    if (part.type === 'file') return readFile(part.file, `${where}/file`, tally);
    throw refuseField(
      `${where}/type`,
      `'${part.type.slice(0, 64)}' content is not supported: text, image_url and file are`,
    );
  });
}

function readImageUrl(value: unknown, at: string, tally: MediaTally): ImagePart {
  if (typeof value !== 'object' || value === null) throw refuseField(at, 'must be an object');
  const { url, detail } = value as Record<string, unknown>;
  if (typeof url !== 'string') throw refuseField(`${at}/url`, 'must be a string');
  const part: ImagePart = { type: 'image', source: readMediaSource(url, `${at}/url`, tally, 'image') };
  if (detail !== undefined && detail !== null) {
    if (typeof detail !== 'string' || !DETAILS.has(detail))
      throw refuseField(`${at}/detail`, "must be 'auto', 'low' or 'high'");
    part.detail = detail as ImagePart['detail'];
  }
  return part;
}

function readFile(value: unknown, at: string, tally: MediaTally): FilePart {
  if (typeof value !== 'object' || value === null) throw refuseField(at, 'must be an object');
  const { file_data: data, file_id: id, filename } = value as Record<string, unknown>;
  if (id !== undefined && id !== null) {
    throw refuseField(`${at}/file_id`, "not supported: file ids live in OpenAI's Files API; send file_data");
  }
  if (typeof data !== 'string' || data === '')
    throw refuseField(`${at}/file_data`, 'must be a non-empty string');
  // OpenAI's own examples send a data URL; bare base64 is taken as a PDF.
  const url = data.startsWith('data:') ? data : `data:${PDF_MEDIA_TYPE};base64,${data}`;
  const part: FilePart = { type: 'file', source: readMediaSource(url, `${at}/file_data`, tally, 'file') };
  if (typeof filename === 'string' && filename !== '') part.filename = filename.slice(0, 256);
  return part;
}

/**
 * A media URL of OpenAI's APIs (an image's `url`, a file's `file_data` as a data URL) as the
 * gateway's source: base64 of an allowed type, checked and counted against the request's media
 * bound, or for an image an https URL passed on (the gateway never fetches it). The Responses
 * door reads its parts with it too.
 */
export function readMediaSource(
  url: string,
  at: string,
  tally: MediaTally,
  kind: 'image' | 'file',
): MediaSource {
  const inline = readDataUrl(url);
  if (inline !== undefined) {
    const allowed =
      kind === 'image' ? IMAGE_MEDIA_TYPES.has(inline.mediaType) : inline.mediaType === PDF_MEDIA_TYPE;
    if (!allowed) {
      const expected = kind === 'image' ? [...IMAGE_MEDIA_TYPES].join(', ') : PDF_MEDIA_TYPE;
      throw refuseField(at, `the data URL's type must be one of ${expected}`);
    }
    const bytes = base64DecodedBytes(inline.data);
    if (bytes === undefined || bytes === 0) throw refuseField(at, "the data URL's data must be base64");
    const refused = tally.add(bytes);
    if (refused !== undefined) throw refuseField(at, refused);
    return { kind: 'base64', mediaType: inline.mediaType, data: inline.data };
  }
  if (kind === 'file') throw refuseField(at, `must be base64 data or a data URL (${PDF_MEDIA_TYPE})`);
  if (!isPassableUrl(url)) {
    throw refuseField(
      at,
      `must be a base64 data URL or an https URL of at most ${MAX_MEDIA_URL_CHARS} characters`,
    );
  }
  const refused = tally.add(0);
  if (refused !== undefined) throw refuseField(at, refused);
  return { kind: 'url', url };
}

/**
 * `reasoning_effort` as the gateway's effort: `minimal` is `low` and `xhigh` is `high` (the
 * gateway's three steps, CONTRACT 5.2); `none` asks for no thinking.
 */
export function readReasoningEffort(value: unknown): ReasoningRequest | undefined {
  if (value === undefined || value === null || value === 'none') return undefined;
  if (value === 'minimal' || value === 'low') return { effort: 'low' };
  if (value === 'medium') return { effort: 'medium' };
  if (value === 'high' || value === 'xhigh') return { effort: 'high' };
  throw refuseField('/reasoning_effort', "must be 'none', 'minimal', 'low', 'medium', 'high' or 'xhigh'");
}
