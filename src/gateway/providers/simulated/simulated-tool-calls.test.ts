import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { gatewayCompiler } from '../../../../test/helpers/sampler/answer-assertions.ts';
import { witnessedSchemaArb } from '../../../../test/helpers/sampler/witness-schemas.ts';
import type { ChatCall, ChatMessage, ToolDefinition } from '../provider.ts';
import { readDirectives } from './simulated-directives.ts';
import { simulateToolCalls } from './simulated-tool-calls.ts';

const user: ChatMessage[] = [{ role: 'user', content: 'What is the weather in Lyon?' }];

const weather: ToolDefinition = {
  name: 'get_weather',
  parameters: {
    type: 'object',
    properties: {
      city: { type: 'string', minLength: 2, maxLength: 40 },
      unit: { enum: ['celsius', 'fahrenheit'] },
      days: { type: 'integer', minimum: 1, maximum: 7 },
    },
    required: ['city', 'unit'],
    additionalProperties: false,
  },
};
const lookup: ToolDefinition = {
  name: 'lookup',
  parameters: {
    type: 'object',
    properties: { ids: { type: 'array', items: { type: 'string', pattern: '^id-[0-9]{3}$' }, minItems: 2 } },
    required: ['ids'],
  },
};
const tools = [weather, lookup];

function call(overrides: Partial<ChatCall>): ChatCall {
  return { model: 'simulated-chat', messages: user, tools, ...overrides };
}

describe('simulateToolCalls', () => {
  it('calls the forced tool with arguments valid for its schema, deterministically per conversation', () => {
    const first = simulateToolCalls(call({ toolChoice: { name: 'lookup' } }), {}, 42);
    assert.equal(first?.length, 1);
    assert.equal(first?.[0]?.name, 'lookup');
    const args = JSON.parse(first?.[0]?.arguments ?? '');
    assert.deepEqual(gatewayCompiler.compile(lookup.parameters).validate(args), []);
    assert.deepEqual(simulateToolCalls(call({ toolChoice: { name: 'lookup' } }), {}, 42), first);
    const other = simulateToolCalls(call({ toolChoice: { name: 'lookup' } }), {}, 43);
    assert.notEqual(other?.[0]?.id, first?.[0]?.id, 'another conversation, another call id');
  });

  it('calls a tool on required, on the directive (one, several, or any), and none on auto', () => {
    assert.equal(simulateToolCalls(call({ toolChoice: 'required' }), {}, 1)?.length, 1);
    assert.equal(simulateToolCalls(call({ toolChoice: 'auto' }), {}, 1), undefined);
    assert.equal(simulateToolCalls(call({}), {}, 1), undefined);
    assert.deepEqual(
      simulateToolCalls(call({}), { toolCall: 'get_weather' }, 1)?.map((c) => c.name),
      ['get_weather'],
    );
    const parallel = simulateToolCalls(call({}), { toolCall: ['lookup', 'get_weather', 'lookup'] }, 1);
    assert.deepEqual(
      parallel?.map((c) => c.name),
      ['lookup', 'get_weather', 'lookup'],
    );
    assert.equal(new Set(parallel?.map((c) => c.id)).size, 3, 'parallel calls have distinct ids');
    assert.equal(simulateToolCalls(call({}), { toolCall: true }, 1)?.length, 1);
    // A directive naming no offered tool is no directive.
    assert.equal(simulateToolCalls(call({}), { toolCall: 'missing' }, 1), undefined);
  });

  it('calls with the arguments the directive gives, forced by toolChoice or not', () => {
    const given = { name: 'get_weather', arguments: '{"city":"Lyon","unit":"celsius"}' };
    const directed = simulateToolCalls(call({}), { toolCall: [given, 'lookup'] }, 1);
    assert.deepEqual(
      directed?.map((made) => [made.name, made.arguments]),
      [
        ['get_weather', given.arguments],
        ['lookup', directed?.[1]?.arguments],
      ],
    );
    assert.ok(JSON.parse(directed?.[1]?.arguments ?? '').ids.length >= 2, 'sampled where none are given');
    const forced = simulateToolCalls(call({ toolChoice: { name: 'get_weather' } }), { toolCall: [given] }, 1);
    assert.equal(forced?.[0]?.arguments, given.arguments);
    // As read from a request: arguments must be a JSON object, else the call is no directive.
    const read = readDirectives({
      simulated: {
        toolCall: [{ name: 'a', arguments: { x: 1 } }, { name: 'b', arguments: '{}' }, 'c', { name: 'd' }],
      },
    });
    assert.deepEqual(read.toolCall, [{ name: 'a', arguments: '{"x":1}' }, 'c', { name: 'd' }]);
  });

  it('answers text after a tool result, with toolChoice none, and without tools', () => {
    const answered: ChatMessage[] = [
      ...user,
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{}' }] },
      { role: 'tool', content: '{"temp": 21}', toolCallId: 'c1' },
    ];
    assert.equal(
      simulateToolCalls(call({ messages: answered, toolChoice: 'required' }), { toolCall: true }, 1),
      undefined,
    );
    assert.equal(simulateToolCalls(call({ toolChoice: 'none' }), { toolCall: 'lookup' }, 1), undefined);
    assert.equal(simulateToolCalls(call({ tools: [] }), { toolCall: true }, 1), undefined);
  });

  it('gives arguments valid for any object schema the gateway accepts (fixed seed)', () => {
    let refused = 0;
    const runs = 300;
    fc.assert(
      fc.property(witnessedSchemaArb, fc.nat(), ({ schema }, seed) => {
        // A tool's parameters are an object schema: the sampled schema becomes a required property,
        // its local references moved with it.
        const moved = JSON.parse(
          JSON.stringify(schema).replace(/"(\$ref|\$dynamicRef)":"#/g, '"$1":"#/properties/value'),
        );
        const parameters = { type: 'object', properties: { value: moved }, required: ['value'] };
        let compiled: ReturnType<typeof gatewayCompiler.compile>;
        try {
          compiled = gatewayCompiler.compile(parameters);
        } catch {
          refused++;
          return;
        }
        const tool = { name: 'sampled', parameters };
        const calls = simulateToolCalls(call({ tools: [tool], toolChoice: 'required' }), {}, seed);
        assert.equal(calls?.length, 1);
        const args = JSON.parse(calls?.[0]?.arguments ?? '');
        assert.deepEqual(compiled.validate(args), [], `arguments ${calls?.[0]?.arguments}`);
      }),
      { numRuns: runs, seed: 20_261_125 },
    );
    assert.ok(refused < runs / 20, `${refused} of ${runs} schemas refused`);
  });
});
