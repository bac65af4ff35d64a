import {
  base64DecodedBytes,
  IMAGE_MEDIA_TYPES,
  isPassableUrl,
  MAX_MEDIA_URL_CHARS,
  type MediaSource,
  type MediaTally,
  PDF_MEDIA_TYPE,
  readDataUrl,
} from '../domain/content-parts.ts';
import { refuseField } from './openai-refusal.ts';

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
