import {
  type ContentPart,
  type FilePart,
  type ImagePart,
  type MediaTally,
  PDF_MEDIA_TYPE,
  type ReasoningRequest,
} from '../../domain/content-parts.ts';
import { refuseField } from '../openai-refusal.ts';
import { readMediaSource } from '../read-media-source.ts';

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
