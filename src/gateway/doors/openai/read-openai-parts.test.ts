import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../platform/errors.ts';
import type { OpenAIChatBody } from './openai-schemas.ts';
import { readCompletionRequest } from './read-completion-request.ts';

const PNG = 'iVBORw0KGgo=';
const PDF = 'JVBERi0xLjQK';

const read = (content: unknown[], extra: Record<string, unknown> = {}) =>
  readCompletionRequest({ model: 'm', messages: [{ role: 'user', content }], ...extra } as OpenAIChatBody);

function refusal(content: unknown[], extra: Record<string, unknown> = {}): { path: string; message: string } {
  try {
    read(content, extra);
  } catch (error) {
    assert.ok(error instanceof ApiError);
    return { path: (error.details as { path: string }[])[0]?.path ?? '', message: error.message };
  }
  throw new Error('not refused');
}

describe('the OpenAI door reads image_url and file parts and reasoning_effort', () => {
  it('keeps the parts in order, the text joined into content', () => {
    const request = read([
      { type: 'text', text: 'Compare ' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}`, detail: 'high' } },
      { type: 'image_url', image_url: { url: 'https://example.com/a.jpg' } },
      { type: 'file', file: { file_data: PDF, filename: 'a.pdf' } },
      { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}` } },
      { type: 'text', text: 'them.' },
    ]);
    const [message] = request.input.messages;
    assert.equal(message?.content, 'Compare them.');
    assert.deepEqual(message?.parts, [
      { type: 'text', text: 'Compare ' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG }, detail: 'high' },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/a.jpg' } },
      {
        type: 'file',
        source: { kind: 'base64', mediaType: 'application/pdf', data: PDF },
        filename: 'a.pdf',
      },
      { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: PDF } },
      { type: 'text', text: 'them.' },
    ]);
  });

  it('maps reasoning_effort onto three steps; none is no reasoning', () => {
    const effort = (reasoning_effort: string) =>
      read([{ type: 'text', text: 'hi' }], { reasoning_effort }).input as { reasoning?: unknown };
    assert.deepEqual(effort('minimal').reasoning, { effort: 'low' });
    assert.deepEqual(effort('medium').reasoning, { effort: 'medium' });
    assert.deepEqual(effort('xhigh').reasoning, { effort: 'high' });
    assert.equal(effort('none').reasoning, undefined);
    assert.equal(
      refusal([{ type: 'text', text: 'hi' }], { reasoning_effort: 'max' }).path,
      '/reasoning_effort',
    );
  });

  it('refuses, naming the part, what it cannot carry or check', () => {
    const cases: [unknown, string, RegExp][] = [
      [
        { type: 'image_url', image_url: { url: 'http://example.com/a.png' } },
        '/messages/0/content/0/image_url/url',
        /https URL/,
      ],
      [
        { type: 'image_url', image_url: { url: 'file:///etc/passwd' } },
        '/messages/0/content/0/image_url/url',
        /https URL/,
      ],
      [
        { type: 'image_url', image_url: { url: `data:image/bmp;base64,${PNG}` } },
        '/messages/0/content/0/image_url/url',
        /type must be one of/,
      ],
      [
        { type: 'image_url', image_url: { url: 'data:image/png;base64,@@@@' } },
        '/messages/0/content/0/image_url/url',
        /must be base64/,
      ],
      [
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}`, detail: 'max' } },
        '/messages/0/content/0/image_url/detail',
        /'auto', 'low' or 'high'/,
      ],
      [{ type: 'file', file: { file_id: 'file-1' } }, '/messages/0/content/0/file/file_id', /Files API/],
      [
        { type: 'file', file: { file_data: `data:text/plain;base64,${PDF}` } },
        '/messages/0/content/0/file/file_data',
        /application\/pdf/,
      ],
      [{ type: 'input_audio', input_audio: {} }, '/messages/0/content/0/type', /not supported/],
    ];
    for (const [part, path, message] of cases) {
      const refused = refusal([part]);
      assert.equal(refused.path, path, JSON.stringify(part));
      assert.match(refused.message, message);
    }
  });
});
