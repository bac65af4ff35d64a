import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../platform/errors.ts';
import { readRelayRequest } from './read-relay-request.ts';

const base = { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };

function refusal(body: unknown): string {
  try {
    readRelayRequest(body);
  } catch (error) {
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, 'invalid_request');
    return error.message;
  }
  assert.fail('accepted');
}

describe('readRelayRequest', () => {
  it('accepts what only the upstream judges: unknown blocks, roles, fields and tool types', () => {
    const read = readRelayRequest({
      ...base,
      stream: true,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      thinking: { type: 'adaptive' },
      some_field_from_2031: { anything: [1, 2] },
      tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      metadata: { user_id: 'u-1' },
      messages: [
        {
          role: 'user',
          content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }],
        },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'Hmm.', signature: 'c2ln' }] },
        { role: 'system', content: [{ type: 'mystery_block', text: 'Environment.' }] },
      ],
    });
    assert.deepEqual(
      [read.model, read.maxTokens, read.stream, read.tools],
      ['claude-sonnet-4-5', 16, true, true],
    );
    assert.deepEqual(read.session, { userId: 'u-1' });
    assert.deepEqual(read.metadata, { user_id: 'u-1' });
  });

  it('collects the prompt’s texts for the limits, not base64 data, signatures or block types', () => {
    const read = readRelayRequest({
      ...base,
      system: 'System text.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look.' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(10_000) } },
          ],
        },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'Red.', signature: 'S'.repeat(500) }] },
      ],
    });
    assert.deepEqual(read.texts.sort(), ['Look.', 'Red.', 'System text.']);
  });

  it('walks a body nested deeper than the call stack allows without failing', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const read = readRelayRequest({ ...base, messages: [{ role: 'user', content: [{ type: 'x', deep }] }] });
    assert.ok(read.texts.includes('bottom'));
  });

  it('refuses what the gateway needs, naming the field as Anthropic does', () => {
    assert.match(refusal({ max_tokens: 16, messages: base.messages }), /^model: field required/);
    assert.match(refusal({ ...base, model: '' }), /^model: must not be empty/);
    assert.match(refusal({ ...base, model: 'm'.repeat(257) }), /^model: must be at most 256/);
    assert.match(refusal({ ...base, max_tokens: 0 }), /^max_tokens: must be at least 1/);
    assert.match(refusal({ ...base, max_tokens: 1.5 }), /^max_tokens: must be an integer/);
    assert.match(refusal({ ...base, messages: 'hi' }), /^messages: must be an array/);
    assert.match(refusal({ ...base, messages: [{ content: 'hi' }] }), /^messages\.0\.role: field required/);
    assert.match(refusal({ ...base, messages: [{ role: 'user' }] }), /^messages\.0\.content: field required/);
    assert.match(
      refusal({ ...base, messages: [{ role: 'user', content: 5 }] }),
      /^messages\.0\.content: must be an array/,
    );
    assert.match(
      refusal({ ...base, messages: [{ role: 'user', content: ['x'] }] }),
      /^messages\.0\.content\.0: must be an object/,
    );
    assert.match(refusal({ ...base, stream: 'yes' }), /^stream: must be a boolean/);
    assert.match(refusal({ ...base, system: 5 }), /^system: must be an array/);
    assert.match(refusal({ ...base, tools: {} }), /^tools: must be an array/);
    assert.match(refusal([base]), /^body: must be an object/);
  });
});
