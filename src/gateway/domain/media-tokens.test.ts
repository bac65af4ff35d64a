import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redSquarePng } from '../../../test/helpers/tiny-png.ts';
import {
  imageSize,
  MAX_IMAGE_TOKENS,
  mediaPartTokens,
  mediaTokens,
  TOKENS_PER_PDF_PAGE,
} from './media-tokens.ts';

const png = (size: number) => redSquarePng(size).toString('base64');

/** A JPEG's first bytes: SOI, an APP0 segment, then SOF0 naming 640 × 480. */
function jpegHeader(): string {
  const app0 = [0xff, 0xe0, 0x00, 0x10, ...Array(14).fill(0)];
  const sof0 = [0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03, ...Array(9).fill(0)];
  return Buffer.from([0xff, 0xd8, ...app0, ...sof0]).toString('base64');
}

describe('media tokens', () => {
  it('reads the size of a PNG, a GIF and a JPEG from their headers', () => {
    assert.deepEqual(imageSize(png(30)), { width: 30, height: 30 });
    const gif = Buffer.from([...Buffer.from('GIF89a'), 0x40, 0x01, 0xc8, 0x00, ...Array(20).fill(0)]);
    assert.deepEqual(imageSize(gif.toString('base64')), { width: 320, height: 200 });
    assert.deepEqual(imageSize(jpegHeader()), { width: 640, height: 480 });
    assert.equal(imageSize('bm90IGFuIGltYWdlIGF0IGFsbCwganVzdCB0ZXh0'), undefined);
  });

  it('counts an image as width × height / 750, at most 1,600; an unreadable one as 1,600', () => {
    const image = (data: string) => ({
      type: 'image' as const,
      source: { kind: 'base64' as const, mediaType: 'image/png', data },
    });
    assert.equal(mediaPartTokens(image(png(30))), Math.ceil((30 * 30) / 750));
    assert.equal(mediaPartTokens(image(jpegHeader())), Math.ceil((640 * 480) / 750));
    assert.equal(mediaPartTokens(image(png(2000))), MAX_IMAGE_TOKENS);
    assert.equal(
      mediaPartTokens({ type: 'image', source: { kind: 'url', url: 'https://x.test/a.png' } }),
      MAX_IMAGE_TOKENS,
    );
  });

  it('counts a PDF at 3,000 tokens a page, pages from its page objects or its size', () => {
    const pdf = Buffer.from(
      '%PDF-1.4\n1 0 obj <</Type /Pages /Kids [2 0 R 3 0 R] /Count 2>> endobj\n2 0 obj <</Type /Page>> endobj\n3 0 obj <</Type/Page>> endobj\n%%EOF',
    ).toString('base64');
    const file = (data: string) => ({
      type: 'file' as const,
      source: { kind: 'base64' as const, mediaType: 'application/pdf', data },
    });
    assert.equal(mediaPartTokens(file(pdf)), 2 * TOKENS_PER_PDF_PAGE);
    const opaque = Buffer.alloc(250 * 1024, 7).toString('base64');
    assert.equal(mediaPartTokens(file(opaque)), 3 * TOKENS_PER_PDF_PAGE);
    assert.equal(
      mediaTokens([
        { role: 'user', content: 'see', parts: [{ type: 'text', text: 'see' }, file(pdf)] },
        { role: 'user', content: 'plain' },
      ]),
      2 * TOKENS_PER_PDF_PAGE,
    );
  });
});
