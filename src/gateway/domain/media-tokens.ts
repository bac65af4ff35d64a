import type { MediaPart } from './content-parts.ts';
import type { ChatMessage } from './messages.ts';

/**
 * Input tokens of a request's images and PDFs, counted the way the vendors describe it, so that the
 * simulated provider's usage and the gateway's own estimates stay honest when a request carries
 * media (the gateway's tokenizer counts text only):
 *
 * - an image costs `width × height / 750` tokens (Anthropic's published formula), at most 1,600
 *   (Anthropic scales larger images down to about that), at least 1; the size is read from the PNG,
 *   GIF or JPEG header when the data is inline and readable, else the image counts the 1,600 of a
 *   full-size one;
 * - a PDF costs 3,000 tokens a page (the top of Anthropic's 1,500–3,000 per page: a page's text and
 *   its image), its pages counted from `/Type /Page` objects in the first MiB of the file, or, when
 *   none are found there (compressed object streams) or the PDF is a URL, one page per 100 KiB
 *   (at least one).
 *
 * Work is bounded whatever a client sends: headers are decoded from the first 48 KiB only, page
 * objects from the first MiB of a PDF, and at most 2 MiB are decoded for one request's PDFs (the
 * rest are counted by size), so a request of a hundred PDFs costs milliseconds.
 */

export const MAX_IMAGE_TOKENS = 1600;
export const TOKENS_PER_IMAGE_PIXELS = 750;
export const TOKENS_PER_PDF_PAGE = 3000;
const PDF_BYTES_PER_GUESSED_PAGE = 100 * 1024;
/** Base64 characters decoded to find an image's size (JPEG's frame header may follow EXIF data). */
const IMAGE_HEADER_CHARS = 64 * 1024;
/** Base64 characters decoded to count a PDF's page objects (1 MiB of the file). */
const PDF_SCAN_CHARS = (1024 * 1024 * 4) / 3;
/** Base64 characters decoded for all the PDFs of one request (2 MiB of files). */
const REQUEST_SCAN_CHARS = 2 * PDF_SCAN_CHARS;

export function mediaTokens(messages: readonly ChatMessage[]): number {
  let tokens = 0;
  const scan = { chars: REQUEST_SCAN_CHARS };
  for (const message of messages) {
    for (const part of message.parts ?? []) {
      if (part.type === 'image' || part.type === 'file') tokens += mediaPartTokens(part, scan);
    }
  }
  return tokens;
}

/** `scan.chars`: base64 characters the request may still decode to count PDF pages; spent here. */
export function mediaPartTokens(part: MediaPart, scan = { chars: PDF_SCAN_CHARS }): number {
  if (part.type === 'image') {
    const size = part.source.kind === 'base64' ? imageSize(part.source.data) : undefined;
    if (size === undefined) return MAX_IMAGE_TOKENS;
    return Math.max(
      1,
      Math.min(MAX_IMAGE_TOKENS, Math.ceil((size.width * size.height) / TOKENS_PER_IMAGE_PIXELS)),
    );
  }
  return pdfPages(part, scan) * TOKENS_PER_PDF_PAGE;
}

function pdfPages(part: MediaPart, scan: { chars: number }): number {
  if (part.source.kind !== 'base64') return 1;
  const data = part.source.data;
  const chars = Math.min(PDF_SCAN_CHARS, scan.chars, data.length);
  scan.chars -= chars;
  const bytes = chars < 8 ? undefined : decodePrefix(data, chars);
  const pages = bytes === undefined ? 0 : (bytes.match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0);
  if (pages > 0) return pages;
  return Math.max(1, Math.ceil((data.length * 3) / 4 / PDF_BYTES_PER_GUESSED_PAGE));
}

/** The first bytes of base64 text, as a binary string (one character a byte); undefined when not base64. */
function decodePrefix(data: string, chars: number): string | undefined {
  const length = Math.min(data.length, chars) - (Math.min(data.length, chars) % 4);
  try {
    return atob(data.slice(0, length));
  } catch {
    return undefined;
  }
}

interface Size {
  width: number;
  height: number;
}

/** Width and height from a PNG, GIF or JPEG header; undefined for another format or a broken header. */
export function imageSize(data: string): Size | undefined {
  const bytes = decodePrefix(data, IMAGE_HEADER_CHARS);
  if (bytes === undefined || bytes.length < 24) return undefined;
  const at = (index: number) => bytes.charCodeAt(index);
  const be16 = (index: number) => (at(index) << 8) | at(index + 1);
  const be32 = (index: number) => be16(index) * 65536 + be16(index + 2);
  if (bytes.startsWith('\x89PNG\r\n\x1a\n') && bytes.slice(12, 16) === 'IHDR') {
    return valid({ width: be32(16), height: be32(20) });
  }
  if (bytes.startsWith('GIF8')) return valid({ width: at(6) | (at(7) << 8), height: at(8) | (at(9) << 8) });
  if (at(0) === 0xff && at(1) === 0xd8) return jpegSize(bytes, at, be16);
  return undefined;
}

/** A JPEG's size from its first start-of-frame marker (SOF0–SOF15 but DHT, JPG and DAC). */
function jpegSize(
  bytes: string,
  at: (index: number) => number,
  be16: (index: number) => number,
): Size | undefined {
  let offset = 2;
  while (offset + 9 < bytes.length) {
    if (at(offset) !== 0xff) return undefined;
    const marker = at(offset + 1);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return valid({ width: be16(offset + 7), height: be16(offset + 5) });
    }
    offset += 2 + be16(offset + 2);
  }
  return undefined;
}

function valid(size: Size): Size | undefined {
  return size.width > 0 && size.height > 0 ? size : undefined;
}
