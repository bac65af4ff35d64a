import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_MEDIA_BYTES_PER_REQUEST } from '../../domain/content-parts.ts';
import { readMessagesRequest } from './read-messages-request.ts';

const PNG = 'iVBORw0KGgo=';
const PDF = Buffer.from('%PDF-1.4\n%%EOF').toString('base64');

function read(extra: Record<string, unknown>) {
  return readMessagesRequest({ model: 'claude-x', max_tokens: 100, ...extra });
}

function refusal(extra: Record<string, unknown>): string {
  try {
    read(extra);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('not refused');
}

describe('the Anthropic door reads images, documents, thinking and cache_control', () => {
  it('keeps image and document blocks as parts in order, text documents as text', () => {
    const request = read({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare.', cache_control: { type: 'ephemeral', ttl: '1h' } },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
            {
              type: 'document',
              title: 'spec.pdf',
              source: { type: 'base64', media_type: 'application/pdf', data: PDF },
            },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain words' } },
          ],
        },
      ],
    });
    const [message] = request.input.messages;
    assert.equal(message?.content, 'Compare.\n\nplain words');
    assert.deepEqual(message?.parts, [
      { type: 'text', text: 'Compare.', cache: { ttl: '1h' } },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG } },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' } },
      {
        type: 'file',
        source: { kind: 'base64', mediaType: 'application/pdf', data: PDF },
        filename: 'spec.pdf',
      },
      { type: 'text', text: 'plain words' },
    ]);
  });

  it('reads an image inside a tool_result, and thinking blocks with their signature', () => {
    const request = read({
      thinking: { type: 'enabled', budget_tokens: 31999 },
      messages: [
        { role: 'user', content: 'Look at a.png' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'I should read it.', signature: 'c2ln' },
            { type: 'redacted_thinking', data: 'ZW5j' },
            { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'a.png' } },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }],
            },
          ],
        },
      ],
    });
    assert.deepEqual(request.input.reasoning, { effort: 'high', budgetTokens: 31999 });
    const [, assistant, tool] = request.input.messages;
    assert.deepEqual(assistant?.parts, [
      { type: 'thinking', vendor: 'anthropic', text: 'I should read it.', signature: 'c2ln' },
      { type: 'thinking', vendor: 'anthropic', text: '', redacted: 'ZW5j' },
    ]);
    assert.equal(assistant?.content, '');
    assert.equal(tool?.role, 'tool');
    assert.equal(tool?.toolCallId, 'toolu_1');
    assert.deepEqual(tool?.parts, [
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG } },
    ]);
  });

  it('maps the thinking field: budgets by threshold, adaptive as medium, disabled as none', () => {
    const reasoning = (thinking: unknown) =>
      read({ thinking, messages: [{ role: 'user', content: 'Hi' }] }).input.reasoning;
    assert.deepEqual(reasoning({ type: 'enabled', budget_tokens: 1024 }), {
      effort: 'low',
      budgetTokens: 1024,
    });
    assert.deepEqual(reasoning({ type: 'enabled', budget_tokens: 4096 }), {
      effort: 'medium',
      budgetTokens: 4096,
    });
    assert.deepEqual(reasoning({ type: 'enabled', budget_tokens: 16384 }), {
      effort: 'high',
      budgetTokens: 16384,
    });
    assert.deepEqual(reasoning({ type: 'adaptive', display: 'omitted' }), {
      effort: 'medium',
      budgetTokens: 8192,
    });
    assert.equal(reasoning({ type: 'disabled' }), undefined);
  });

  it('refuses, naming the field, what no other vendor has or what is not media', () => {
    const user = (block: unknown) => ({ messages: [{ role: 'user', content: [block] }] });
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        user({ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: PNG } }),
        /^messages\.0\.content\.0\.source\.media_type: must be one of image\/png/,
      ],
      [
        user({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'not base64!' } }),
        /^messages\.0\.content\.0\.source\.data: must be base64/,
      ],
      [
        user({ type: 'image', source: { type: 'url', url: 'http://example.com/a.png' } }),
        /^messages\.0\.content\.0\.source\.url: must be an https URL/,
      ],
      [
        user({ type: 'image', source: { type: 'file', file_id: 'file_1' } }),
        /^messages\.0\.content\.0\.source\.type: not supported: 'file' sources/,
      ],
      [
        user({
          type: 'document',
          citations: { enabled: true },
          source: { type: 'base64', media_type: 'application/pdf', data: PDF },
        }),
        /^messages\.0\.content\.0\.citations: not supported/,
      ],
      [
        user({ type: 'text', text: 'x', cache_control: { type: 'forever' } }),
        /^messages\.0\.content\.0\.cache_control\.type: must be 'ephemeral'/,
      ],
      [
        { thinking: { type: 'enabled', budget_tokens: 10 }, ...user({ type: 'text', text: 'x' }) },
        /^thinking\.budget_tokens: must be at least 1024/,
      ],
      [{ thinking: { type: 'sometimes' }, ...user({ type: 'text', text: 'x' }) }, /^thinking\.type: must be/],
    ];
    for (const [body, expected] of cases) assert.match(refusal(body), expected);
  });

  it('bounds the decoded media of one request without decoding it', () => {
    // Four images of 9 MiB each (as base64): the fourth passes the 32 MiB bound.
    const big = 'A'.repeat(((9 * 1024 * 1024) / 3) * 4);
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: big } };
    const message = refusal({ messages: [{ role: 'user', content: [image, image, image, image] }] });
    assert.match(
      message,
      /^messages\.0\.content\.3\.source\.data: the images and files of a request may hold at most 32 MiB/,
    );
    assert.equal(MAX_MEDIA_BYTES_PER_REQUEST, 32 * 1024 * 1024);
  });
});
