import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatCall, ChatMessage } from '../provider.ts';
import { FILLER_USER_TURN, toAnthropicRequest, toolName } from './to-anthropic-request.ts';

const options = { defaultMaxTokens: 1024, stream: false };
const call = (messages: ChatMessage[], extra: Partial<ChatCall> = {}): ChatCall => ({
  model: 'claude-sonnet-4-5',
  messages,
  ...extra,
});

describe('toAnthropicRequest: messages', () => {
  const cases: { name: string; messages: ChatMessage[]; system?: string; turns: [string, string][] }[] = [
    {
      name: 'system messages become the top-level system, joined in order',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'system', content: 'Answer in French.' },
      ],
      system: 'Be brief.\n\nAnswer in French.',
      turns: [['user', 'Hi']],
    },
    {
      name: 'consecutive same-role messages merge with a blank line',
      messages: [
        { role: 'user', content: 'One' },
        { role: 'user', content: 'Two' },
        { role: 'assistant', content: 'A' },
        { role: 'assistant', content: 'B' },
        { role: 'user', content: 'Three' },
      ],
      turns: [
        ['user', 'One\n\nTwo'],
        ['assistant', 'A\n\nB'],
        ['user', 'Three'],
      ],
    },
    {
      name: 'a tool result is user text, merged with the user turn that follows',
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: 'Checking.' },
        { role: 'tool', name: 'get_weather', content: '{"temp":21}' },
        { role: 'user', content: 'And tomorrow?' },
        { role: 'tool', content: 'plain result' },
      ],
      turns: [
        ['user', 'Weather?'],
        ['assistant', 'Checking.'],
        ['user', 'Tool result (get_weather):\n{"temp":21}\n\nAnd tomorrow?\n\nTool result:\nplain result'],
      ],
    },
    {
      name: 'a user name is kept as a prefix, an assistant name is dropped',
      messages: [
        { role: 'user', name: 'alice', content: 'Hello' },
        { role: 'assistant', name: 'bot', content: 'Hi Alice' },
        { role: 'user', name: '  ', content: 'No name' },
      ],
      turns: [
        ['user', 'alice: Hello'],
        ['assistant', 'Hi Alice'],
        ['user', 'No name'],
      ],
    },
    {
      name: 'a leading and a trailing assistant turn get filler user turns',
      messages: [{ role: 'assistant', content: 'I spoke first.' }],
      turns: [
        ['user', FILLER_USER_TURN],
        ['assistant', 'I spoke first.'],
        ['user', FILLER_USER_TURN],
      ],
    },
    {
      name: 'only system messages still send one user turn',
      messages: [{ role: 'system', content: 'Say hello.' }],
      system: 'Say hello.',
      turns: [['user', FILLER_USER_TURN]],
    },
    {
      name: 'empty messages are dropped before merging',
      messages: [
        { role: 'system', content: '  ' },
        { role: 'user', content: 'A' },
        { role: 'assistant', content: '' },
        { role: 'user', content: 'B' },
      ],
      turns: [['user', 'A\n\nB']],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { body, jsonTool } = toAnthropicRequest(call(c.messages), options);
      assert.equal(body.system, c.system);
      assert.deepEqual(
        body.messages.map((m) => [m.role, m.content]),
        c.turns,
      );
      assert.equal(jsonTool, undefined);
      assert.equal(body.tools, undefined);
    });
  }

  it('never sends two turns of the same role in a row, and always starts with user', () => {
    const roles = ['system', 'user', 'assistant', 'tool'] as const;
    for (let seed = 0; seed < 200; seed++) {
      const messages: ChatMessage[] = [];
      for (let i = 0; i < (seed % 7) + 1; i++) {
        messages.push({ role: roles[(seed * 31 + i * 17) % 4] as ChatMessage['role'], content: `m${i}` });
      }
      const turns = toAnthropicRequest(call(messages), options).body.messages;
      assert.equal(turns[0]?.role, 'user');
      assert.equal(turns.at(-1)?.role, 'user');
      for (let i = 1; i < turns.length; i++) assert.notEqual(turns[i]?.role, turns[i - 1]?.role);
    }
  });
});

describe('toAnthropicRequest: parameters', () => {
  const hi: ChatMessage[] = [{ role: 'user', content: 'Hi' }];

  it('sends max_tokens from the call, else the slot default', () => {
    assert.equal(toAnthropicRequest(call(hi, { maxTokens: 50 }), options).body.max_tokens, 50);
    assert.equal(toAnthropicRequest(call(hi), options).body.max_tokens, 1024);
  });

  it('clamps temperature to 0..1 and omits it when not given', () => {
    assert.equal(toAnthropicRequest(call(hi, { temperature: 1.7 }), options).body.temperature, 1);
    assert.equal(toAnthropicRequest(call(hi, { temperature: -0.5 }), options).body.temperature, 0);
    assert.equal(toAnthropicRequest(call(hi, { temperature: 0.3 }), options).body.temperature, 0.3);
    assert.equal('temperature' in toAnthropicRequest(call(hi), options).body, false);
  });

  it('asks for a stream only when streaming, and passes the model through', () => {
    assert.equal(toAnthropicRequest(call(hi), options).body.stream, undefined);
    const streamed = toAnthropicRequest(call(hi), { ...options, stream: true }).body;
    assert.equal(streamed.stream, true);
    assert.equal(streamed.model, 'claude-sonnet-4-5');
  });
});

describe('toAnthropicRequest: structured output', () => {
  const hi: ChatMessage[] = [{ role: 'user', content: 'Facts about Paris' }];

  it('forces a tool whose input_schema is an object schema as given', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const { body, jsonTool } = toAnthropicRequest(
      call(hi, { jsonSchema: { name: 'city_facts', schema } }),
      options,
    );
    assert.deepEqual(jsonTool, { name: 'city_facts', wrapped: false });
    assert.equal(body.tools?.length, 1);
    assert.equal(body.tools?.[0]?.name, 'city_facts');
    assert.equal(body.tools?.[0]?.input_schema, schema);
    assert.match(body.tools?.[0]?.description ?? '', /city_facts/);
    assert.deepEqual(body.tool_choice, { type: 'tool', name: 'city_facts' });
  });

  it('wraps a non-object root (and a root anyOf) as the "value" property, keeping $defs at the root', () => {
    const list = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      items: { $ref: '#/$defs/n' },
      $defs: { n: { type: 'number' } },
    };
    const { body, jsonTool } = toAnthropicRequest(
      call(hi, { jsonSchema: { name: 'numbers', schema: list } }),
      options,
    );
    assert.deepEqual(jsonTool, { name: 'numbers', wrapped: true });
    assert.deepEqual(body.tools?.[0]?.input_schema, {
      type: 'object',
      properties: { value: { type: 'array', items: { $ref: '#/$defs/n' } } },
      required: ['value'],
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: { n: { type: 'number' } },
    });
    const union = { type: 'object', anyOf: [{ required: ['a'] }, { required: ['b'] }] };
    const wrapped = toAnthropicRequest(call(hi, { jsonSchema: { name: 'u', schema: union } }), options);
    assert.equal(wrapped.jsonTool?.wrapped, true);
    assert.equal('$defs' in (wrapped.body.tools?.[0]?.input_schema ?? {}), false);
  });

  it('sanitises the tool name to ^[a-zA-Z0-9_-]{1,64}$', () => {
    assert.equal(toolName('city facts/v2.1'), 'city_facts_v2_1');
    assert.equal(toolName(''), 'json_output');
    assert.equal(toolName('x'.repeat(100)).length, 64);
    assert.match(toolName('données: été'), /^[a-zA-Z0-9_-]{1,64}$/);
  });
});
