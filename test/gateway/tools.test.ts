import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { APP, shareGateway, startGateway } from '../helpers/gateway-harness.ts';
import { gatewayCompiler } from '../helpers/sampler/answer-assertions.ts';

const weather = {
  name: 'get_weather',
  description: 'The current weather in a city',
  parameters: {
    type: 'object',
    properties: {
      city: { type: 'string', minLength: 2, maxLength: 40 },
      unit: { enum: ['celsius', 'fahrenheit'] },
    },
    required: ['city', 'unit'],
    additionalProperties: false,
  },
};
const lookup = {
  name: 'lookup',
  parameters: {
    type: 'object',
    properties: { id: { type: 'string', pattern: '^id-[0-9]{4}$' } },
    required: ['id'],
  },
};
const tools = [weather, lookup];
const ask = { role: 'user', content: 'What is the weather in Lyon?' };

interface Call {
  id: string;
  name: string;
  arguments: string;
}

/** The second turn of an agent loop: the assistant's calls, then one tool result per call. */
function withResults(calls: Call[]): unknown[] {
  return [
    ask,
    { role: 'assistant', content: '', toolCalls: calls },
    ...calls.map((call) => ({ role: 'tool', toolCallId: call.id, content: `{"result": "${call.name} ok"}` })),
  ];
}

function assertValidArguments(call: Call, parameters: Record<string, unknown>): void {
  const args = JSON.parse(call.arguments);
  assert.deepEqual(gatewayCompiler.compile(parameters).validate(args), [], call.arguments);
}

describe('tool calling on /v1/chat (simulated provider)', () => {
  const gw = shareGateway();

  it('runs a two-step tool loop: a forced call with valid arguments, then a text answer', async () => {
    const first = await gw.chat({ messages: [ask], tools, toolChoice: { name: 'get_weather' } });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.finishReason, 'tool_calls');
    assert.equal(first.body.message.content, '');
    const calls = first.body.message.toolCalls as Call[];
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.name, 'get_weather');
    assert.match(calls[0]?.id ?? '', /^call_sim_[0-9a-f]{16}$/);
    assertValidArguments(calls[0] as Call, weather.parameters);
    assert.ok(first.body.usage.tokensOut > 0, 'the call counts as output');

    const second = await gw.chat({ messages: withResults(calls), tools, toolChoice: 'auto' });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.equal(second.body.finishReason, 'stop');
    assert.equal(second.body.message.toolCalls, undefined);
    assert.match(second.body.message.content, /^The tool answered: "\{"result": "get_weather ok"\}"/);
  });

  it('streams the same loop: tool_call events, then done with the calls; then deltas and done', async () => {
    const body = { messages: [ask], tools, toolChoice: { name: 'get_weather' } };
    const plain = await gw.chat(body);
    const first = await gw.stream(body);
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.events.map((e) => e.event),
      ['start', 'tool_call', 'done'],
    );
    const done = first.events[2]?.data as Record<string, any>;
    assert.equal(done.finishReason, 'tool_calls');
    assert.deepEqual(done.message.toolCalls, [first.events[1]?.data]);
    assert.deepEqual(done.message.toolCalls, plain.body.message.toolCalls, 'the same call as JSON');
    assert.equal(done.usage.tokensOut, plain.body.usage.tokensOut);

    const second = await gw.stream({ messages: withResults(done.message.toolCalls), tools });
    const names = second.events.map((e) => e.event);
    assert.equal(names[0], 'start');
    assert.equal(names.at(-1), 'done');
    assert.ok(names.slice(1, -1).every((name) => name === 'delta') && names.length > 3);
    const end = second.events.at(-1)?.data as Record<string, any>;
    assert.equal(end.finishReason, 'stop');
    assert.equal(end.message.toolCalls, undefined);
  });

  it('calls on required, on the toolCall directive (parallel too), and answers text on auto', async () => {
    const required = await gw.chat({ messages: [ask], tools, toolChoice: 'required' });
    assert.equal(required.body.message.toolCalls.length, 1);
    const auto = await gw.chat({ messages: [ask], tools });
    assert.equal(auto.body.finishReason, 'stop');
    assert.equal(auto.body.message.toolCalls, undefined);
    assert.ok(auto.body.message.content.length > 0);

    const parallel = await gw.chat({
      messages: [ask],
      tools,
      metadata: { simulated: { toolCall: ['lookup', 'get_weather'] } },
    });
    const calls = parallel.body.message.toolCalls as Call[];
    assert.deepEqual(
      calls.map((c) => c.name),
      ['lookup', 'get_weather'],
    );
    assertValidArguments(calls[0] as Call, lookup.parameters);
    assertValidArguments(calls[1] as Call, weather.parameters);
    // Both results answered: the loop ends with text.
    const end = await gw.chat({
      messages: withResults(calls),
      tools,
      metadata: { simulated: { toolCall: true } },
    });
    assert.equal(end.status, 200, JSON.stringify(end.body));
    assert.equal(end.body.finishReason, 'stop');

    const none = await gw.chat({
      messages: [ask],
      tools,
      toolChoice: 'none',
      metadata: { simulated: { toolCall: 'lookup' } },
    });
    assert.equal(none.body.finishReason, 'stop');
  });

  it('still accepts a tool message without toolCallId, as before tools existed', async () => {
    const res = await gw.chat({ messages: [ask, { role: 'tool', content: '21 degrees' }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });

  it('counts tool definitions in the reported input tokens', async () => {
    const without = await gw.chat({ messages: [ask] });
    const withTools = await gw.chat({ messages: [ask], tools });
    assert.ok(
      withTools.body.usage.tokensIn > without.body.usage.tokensIn + 20,
      `${withTools.body.usage.tokensIn} vs ${without.body.usage.tokensIn}`,
    );
  });
});

interface InvalidCase {
  name: string;
  body: Record<string, unknown>;
  path: string;
  mentions?: RegExp;
}

const call = (id: string, name = 'get_weather') => ({ id, name, arguments: '{}' });
const bigTool = (i: number) => ({
  name: `tool_${i}`,
  description: 'x'.repeat(5000),
  parameters: { type: 'object' },
});

const invalid: InvalidCase[] = [
  {
    name: 'parameters that do not compile',
    body: { tools: [{ name: 'a', parameters: { type: 'object', properties: { x: { type: 'nonsense' } } } }] },
    path: '/tools/0/parameters',
    mentions: /compile/,
  },
  {
    name: 'a pattern RE2 cannot run',
    body: {
      tools: [
        weather,
        {
          name: 'a',
          parameters: { type: 'object', properties: { x: { type: 'string', pattern: '(a)\\1' } } },
        },
      ],
    },
    path: '/tools/1/parameters/properties/x/pattern',
  },
  {
    name: 'parameters nested too deep',
    body: {
      tools: [
        {
          name: 'a',
          parameters: {
            type: 'object',
            properties: { x: JSON.parse(`${'{"items":'.repeat(60)}{}${'}'.repeat(60)}`) },
          },
        },
      ],
    },
    path: '/tools/0/parameters',
    mentions: /deeper/,
  },
  {
    name: 'a forced size past its cap',
    body: { tools: [{ name: 'a', parameters: { type: 'object', minProperties: 5000 } }] },
    path: '/tools/0/parameters/minProperties',
  },
  {
    name: 'parameters not an object schema',
    body: { tools: [{ name: 'a', parameters: { type: 'string' } }] },
    path: '/tools/0/parameters/type',
    mentions: /object/,
  },
  { name: 'duplicate tool names', body: { tools: [weather, lookup, weather] }, path: '/tools/2/name' },
  {
    name: 'a tool name outside the pattern',
    body: { tools: [{ name: 'get weather', parameters: { type: 'object' } }] },
    path: '/tools/0/name',
  },
  {
    name: 'more than 128 tools',
    body: { tools: Array.from({ length: 129 }, (_, i) => bigTool(i)) },
    path: '/tools',
  },
  {
    name: 'tools too large together',
    body: { tools: Array.from({ length: 110 }, (_, i) => bigTool(i)) },
    path: '/tools',
    mentions: /bytes/,
  },
  {
    name: 'toolChoice naming no tool',
    body: { tools, toolChoice: { name: 'nope' } },
    path: '/toolChoice/name',
  },
  { name: 'toolChoice without tools', body: { toolChoice: 'required' }, path: '/toolChoice' },
  {
    name: 'toolCalls on a user message',
    body: { messages: [{ role: 'user', content: 'hi', toolCalls: [call('c1')] }] },
    path: '/messages/0/toolCalls',
  },
  {
    name: 'toolCallId on a user message',
    body: { messages: [{ role: 'user', content: 'hi', toolCallId: 'c1' }] },
    path: '/messages/0/toolCallId',
  },
  {
    name: 'a tool message answering no call',
    body: {
      messages: [
        ask,
        { role: 'assistant', content: '', toolCalls: [call('c1')] },
        { role: 'tool', content: '1', toolCallId: 'c2' },
      ],
    },
    path: '/messages/2/toolCallId',
    mentions: /c2/,
  },
  {
    name: 'a tool message answering a later call',
    body: {
      messages: [
        ask,
        { role: 'tool', content: '1', toolCallId: 'c1' },
        { role: 'assistant', content: '', toolCalls: [call('c1')] },
      ],
    },
    path: '/messages/1/toolCallId',
  },
  {
    name: 'duplicate call ids',
    body: {
      messages: [
        ask,
        { role: 'assistant', content: '', toolCalls: [call('c1')] },
        { role: 'tool', content: '1', toolCallId: 'c1' },
        { role: 'assistant', content: '', toolCalls: [call('c2'), call('c1', 'lookup')] },
      ],
    },
    path: '/messages/3/toolCalls/1/id',
  },
];

describe('invalid tool requests on /v1/chat: 400 invalid_request naming the JSON Pointer', () => {
  const gw = shareGateway();

  for (const testCase of invalid) {
    it(testCase.name, async () => {
      const body = { messages: [ask], ...testCase.body };
      for (const stream of [false, true]) {
        const res = await gw.chat({ ...body, stream });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.error.code, 'invalid_request');
        const paths = (res.body.error.details as { path: string }[]).map((d) => d.path);
        assert.ok(paths.includes(testCase.path), `${testCase.path} not in ${JSON.stringify(paths)}`);
        if (testCase.mentions !== undefined) assert.match(res.body.error.message, testCase.mentions);
      }
      assert.equal(gw.calls.length, 0, 'an invalid request never reaches an upstream');
    });
  }
});

describe('hostile tools', () => {
  const gw = shareGateway();

  it('parameters nested 10,000 levels: a 400 with the pointer, no stack overflow', async () => {
    // As text: JSON.stringify overflows the stack on a value this deep.
    const deep = `${'{"type":"object","properties":{"a":'.repeat(10_000)}{"type":"string"}${'}}'.repeat(10_000)}`;
    const body = `{"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"deep","parameters":${deep}}]}`;
    const res = await gw.post('/v1/chat', body, { headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 400, res.text.slice(0, 300));
    assert.equal(res.body.error.details[0].path, '/tools/0/parameters');
    assert.match(res.body.error.message, /deeper than 48/);
  });
});

describe('tools and the limits', () => {
  it('the admission counts the tool definitions: a tokens-per-minute limit refuses large tools', async (t) => {
    const gw = await startGateway(t, { file: { limits: { apps: { [APP]: { tokensPerMinute: 400 } } } } });
    const small = await gw.chat({ messages: [ask], maxTokens: 50 });
    assert.equal(small.status, 200);
    const large = await gw.chat({ messages: [ask], maxTokens: 50, tools: [bigTool(1)] });
    assert.equal(large.status, 429);
    assert.equal(large.body.error.details.limit, 'tokens per minute');
  });
});
