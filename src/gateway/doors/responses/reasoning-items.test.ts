import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ThinkingPart } from '../../domain/content-parts.ts';
import { readResponsesRequest } from './read-responses-request.ts';
import { decodeReasoning, encodeReasoning, reasoningItem } from './reasoning-items.ts';
import { outputItems } from './to-response-output.ts';

const signed: ThinkingPart = {
  type: 'thinking',
  vendor: 'anthropic',
  text: 'The file is missing; create it.',
  signature: 'EqQBCkgIARABGAIiQL+sig/==',
};
const redacted: ThinkingPart = {
  type: 'thinking',
  vendor: 'anthropic',
  text: '',
  redacted: 'EmwKAhgBEgy3va3p',
};

describe('reasoning items', () => {
  it('round-trips signed and redacted thinking through the opaque token, byte for byte', () => {
    for (const part of [signed, redacted]) {
      const token = encodeReasoning(part);
      assert.match(token, /^gwr1\.[A-Za-z0-9_-]+$/);
      assert.deepEqual(decodeReasoning(token), part);
    }
  });

  it('reads no thinking from OpenAI tokens, broken tokens, unknown vendors or unsigned payloads', () => {
    const token = (payload: unknown) => `gwr1.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    for (const foreign of [
      'gAAAAABoZ-openai-encrypted',
      'gwr1.%%%not-base64',
      'gwr1.',
      token({ v: 2, vendor: 'anthropic', text: '', signature: 's' }),
      token({ v: 1, vendor: 'mistral', text: '', signature: 's' }),
      token({ v: 1, vendor: 'anthropic', text: 'unsigned' }),
      token([1, 2]),
      42,
      undefined,
    ]) {
      assert.equal(decodeReasoning(foreign), undefined, String(foreign));
    }
  });

  it('writes the item with the text as its summary, the token only when asked', () => {
    assert.deepEqual(reasoningItem('rs_1', signed, false), {
      type: 'reasoning',
      id: 'rs_1',
      summary: [{ type: 'summary_text', text: signed.text }],
    });
    const withToken = reasoningItem('rs_1', redacted, true);
    assert.deepEqual(withToken['summary'], []);
    assert.deepEqual(decodeReasoning(withToken['encrypted_content']), redacted);
  });

  it('puts reasoning items first in the output, before the message and the calls', () => {
    const items = outputItems(
      'resp_ab',
      { text: 'Done.', calls: [{ id: 'c1', name: 'run', arguments: '{}' }], thinking: [signed] },
      new Map(),
      'completed',
      true,
    );
    assert.deepEqual(
      items.map((item) => [item.type, item.id]),
      [
        ['reasoning', 'rs_ab_0'],
        ['message', 'msg_ab_1'],
        ['function_call', 'fc_ab_2'],
      ],
    );
  });

  it('reads a reasoning item back as thinking at the head of the assistant turn it precedes', () => {
    const read = readResponsesRequest({
      model: 'claude-sonnet-4-5',
      input: [
        { role: 'user', content: 'Make hello.txt.' },
        {
          type: 'reasoning',
          id: 'rs_1',
          summary: [],
          content: null,
          encrypted_content: encodeReasoning(signed),
        },
        { type: 'function_call', call_id: 'c1', name: 'write', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'ok' },
        { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: encodeReasoning(redacted) },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Created.' }] },
        { type: 'reasoning', id: 'rs_3', summary: [], encrypted_content: 'gAAAAB-openai-only' },
        { type: 'function_call', call_id: 'c2', name: 'write', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c2', output: 'ok' },
        // No assistant turn follows this one: dropped.
        { type: 'reasoning', id: 'rs_4', summary: [], encrypted_content: encodeReasoning(signed) },
        { role: 'user', content: 'Thanks.' },
      ],
    });
    const messages = read.input.messages;
    const first = messages[1];
    assert.equal(first?.role, 'assistant');
    assert.deepEqual(first?.parts, [signed]);
    assert.equal(first?.content, '');
    const second = messages[3];
    assert.deepEqual(second?.parts, [redacted, { type: 'text', text: 'Created.' }]);
    assert.equal(second?.content, 'Created.');
    assert.equal(second?.toolCalls?.[0]?.id, 'c2');
    const user = messages.at(-1);
    assert.equal(user?.role, 'user');
    assert.equal(user?.parts, undefined);
  });

  it('adds thinking that comes between a message and its calls after the message’s own', () => {
    const read = readResponsesRequest({
      model: 'claude-sonnet-4-5',
      input: [
        { role: 'user', content: 'Go.' },
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: encodeReasoning(signed) },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Looking.' }] },
        { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: encodeReasoning(redacted) },
        { type: 'function_call', call_id: 'c1', name: 'look', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'seen' },
      ],
    });
    assert.deepEqual(read.input.messages[1]?.parts, [signed, redacted, { type: 'text', text: 'Looking.' }]);
  });
});
