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
import { isObject, type JsonObject } from '../request-fields.ts';

/**
 * The Responses API's media parts onto the gateway's content parts (domain/content-parts.ts):
 * `input_image` with `image_url` a base64 data URL (checked as base64 and counted against the
 * request's media bounds, never decoded) or an `https:` URL (passed on, never fetched here), and
 * its `detail`; `input_file` with `file_data` (a PDF, as a data URL or bare base64) and its
 * `filename`. A `file_id` (OpenAI's Files API) and a `file_url` have no counterpart on every
 * vendor: a 400 naming the field.
 */
export function readMediaPart(part: JsonObject, at: string, tally: MediaTally): ContentPart {
  if (part['type'] === 'input_image') return readImage(part, at, tally);
  return readFile(part, at, tally);
}

const DETAILS: ReadonlySet<string> = new Set(['auto', 'low', 'high']);

function readImage(part: JsonObject, at: string, tally: MediaTally): ImagePart {
  if (part['file_id'] != null) {
    throw refuseField(`${at}/file_id`, "not supported: file ids live in OpenAI's Files API; send image_url");
  }
  const url = part['image_url'];
  if (typeof url !== 'string') throw refuseField(`${at}/image_url`, 'must be a string');
  const image: ImagePart = { type: 'image', source: readMediaSource(url, `${at}/image_url`, tally, 'image') };
  const detail = part['detail'];
  // `original` (newer models) asks for no downscaling: the nearest the other vendors have is high.
  if (detail === 'original') image.detail = 'high';
  else if (typeof detail === 'string' && DETAILS.has(detail)) image.detail = detail as ImagePart['detail'];
  else if (detail != null) throw refuseField(`${at}/detail`, "must be 'auto', 'low', 'high' or 'original'");
  return image;
}

function readFile(part: JsonObject, at: string, tally: MediaTally): FilePart {
  if (part['file_id'] != null) {
    throw refuseField(`${at}/file_id`, "not supported: file ids live in OpenAI's Files API; send file_data");
  }
  if (part['file_url'] != null) {
    throw refuseField(`${at}/file_url`, 'not supported: the gateway does not fetch files; send file_data');
  }
  const data = part['file_data'];
  if (typeof data !== 'string' || data === '')
    throw refuseField(`${at}/file_data`, 'must be a non-empty string');
  const url = data.startsWith('data:') ? data : `data:${PDF_MEDIA_TYPE};base64,${data}`;
  const file: FilePart = { type: 'file', source: readMediaSource(url, `${at}/file_data`, tally, 'file') };
  const filename = part['filename'];
  if (typeof filename === 'string' && filename !== '') file.filename = filename.slice(0, 256);
  return file;
}

/**
 * `reasoning.effort` as the gateway's effort (CONTRACT 5.2, 5.9): `minimal` is `low`, `xhigh`
 * is `high`; `none` (and no reasoning object) asks for no thinking.
 */
export function readReasoning(value: unknown): ReasoningRequest | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw refuseField('/reasoning', 'must be an object');
  const effort = value['effort'];
  if (effort === undefined || effort === null || effort === 'none') return undefined;
  if (effort === 'minimal' || effort === 'low') return { effort: 'low' };
  if (effort === 'medium') return { effort: 'medium' };
  if (effort === 'high' || effort === 'xhigh') return { effort: 'high' };
  throw refuseField('/reasoning/effort', "must be 'none', 'minimal', 'low', 'medium', 'high' or 'xhigh'");
}
