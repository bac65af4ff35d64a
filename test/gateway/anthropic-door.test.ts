import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import { anthropicClient, listenForClients } from '../helpers/anthropic-door-client.ts';
import { APP, SECRET, shareGateway, startGateway } from '../helpers/gateway-harness.ts';
import { parseSse } from '../helpers/parse-sse.ts';

// The simulated slot's default model, priced in the sample price table.
const MODEL = 'simulated-chat';
const question = { role: 'user' as const, content: 'Tell me about the gateway.' };

describe('the Anthropic-compatible door driven by @anthropic-ai/sdk', () => {
  const gw = shareGateway();
  let baseURL: string;
  let client: Anthropic;
  before(async () => {
    baseURL = await listenForClients(gw);
    client = anthropicClient(baseURL);
  });

  it('messages.create answers a Message with text, stop reason, usage, and the cost in a header', async () => {
    const { data, response } = await client.messages
      .create({ model: MODEL, max_tokens: 200, messages: [question] })
      .withResponse();
    assert.equal(data.type, 'message');
    assert.equal(data.role, 'assistant');
    assert.equal(data.model, 'simulated-chat');
    assert.ok(data.id.length > 0);
    const [block] = data.content;
    assert.equal(block?.type, 'text');
    assert.ok(block?.type === 'text' && block.text.length > 0);
    assert.equal(data.stop_reason, 'end_turn');
    assert.equal(data.stop_sequence, null);
    assert.ok(data.usage.input_tokens > 0 && data.usage.output_tokens > 0);
    const cost = Number(response.headers.get('x-gateway-cost-usd'));
    // Sample price of simulated-chat: $0.15 in, $0.60 out per million tokens.
    const expected = (data.usage.input_tokens * 0.15 + data.usage.output_tokens * 0.6) / 1e6;
    assert.ok(Math.abs(cost - expected) < 1e-9, `${cost} vs ${expected}`);
    assert.equal(response.headers.get('request-id'), response.headers.get('x-request-id'));
  });

  it('takes system as a string or as text blocks, content as blocks, and ignores metadata and versions', async () => {
    const asString = await client.messages.create({
      model: MODEL,
      max_tokens: 100,
      system: 'Be brief.',
      messages: [question],
      metadata: { user_id: 'user-1' },
    });
    const asBlocks = await client.messages.create(
      {
        model: MODEL,
        max_tokens: 100,
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: [{ type: 'text', text: question.content }] }],
        service_tier: 'auto',
      },
      { headers: { 'anthropic-beta': 'prompt-caching-2024-07-31' } },
    );
    assert.deepEqual(asBlocks.content, asString.content);
    assert.equal(asBlocks.usage.input_tokens, asString.usage.input_tokens);
  });

  it('a request as Claude Code sends it: ?beta=true, beta headers, thinking, cache_control, Bearer key', async () => {
    const res = await fetch(`${baseURL}/v1/messages?beta=true`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${APP}:${SECRET}`,
        'anthropic-version': '2023-06-01',
        'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14',
      },
      body: JSON.stringify({
        model: MODEL,
        max_tokens: 32000,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        system: [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: '<system-reminder>Be careful.</system-reminder>' },
              { type: 'text', text: 'List the files.', cache_control: { type: 'ephemeral' } },
            ],
          },
        ],
        tools: [
          {
            name: 'Bash',
            description: 'Runs a command',
            input_schema: {
              $schema: 'http://json-schema.org/draft-07/schema#',
              type: 'object',
              properties: { command: { type: 'string' } },
              required: ['command'],
              additionalProperties: false,
            },
          },
        ],
        metadata: { user_id: 'user_1_account__session_2' },
        stream: true,
      }),
    });
    assert.equal(res.status, 200);
    const events = parseSse(await res.text());
    assert.equal(events[0]?.event, 'message_start');
    assert.equal(events.at(-1)?.event, 'message_stop');
  });

  it('max_tokens bounds the answer', async () => {
    const answer = await client.messages.create({ model: MODEL, max_tokens: 3, messages: [question] });
    assert.equal(answer.usage.output_tokens, 3);
  });

  it('streams: the SDK helper assembles the same message the non-streamed call answers', async () => {
    const body = { model: MODEL, max_tokens: 200, messages: [question] };
    const whole = await client.messages.create(body);
    const stream = client.messages.stream(body);
    let streamedText = '';
    stream.on('text', (text) => {
      streamedText += text;
    });
    const final = await stream.finalMessage();
    assert.deepEqual(final.content, whole.content);
    assert.equal(streamedText, whole.content[0]?.type === 'text' ? whole.content[0].text : '');
    assert.equal(final.stop_reason, 'end_turn');
    assert.equal(final.usage.input_tokens, whole.usage.input_tokens);
    assert.equal(final.usage.output_tokens, whole.usage.output_tokens);
  });

  it("streams Anthropic's event sequence, with usage and cost_usd in message_delta", async () => {
    const res = await fetch(`${baseURL}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': `${APP}:${SECRET}`,
        'anthropic-version': '2023-06-01',
      },
      body: JSON.stringify({ model: MODEL, max_tokens: 200, stream: true, messages: [question] }),
    });
    assert.equal(res.status, 200);
    assert.match(String(res.headers.get('content-type')), /^text\/event-stream/);
    const events = parseSse(await res.text());
    const names = events.map((e) => e.event);
    assert.deepEqual(names.slice(0, 3), ['message_start', 'ping', 'content_block_start']);
    assert.deepEqual(names.slice(-4), [
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    assert.ok(names.slice(3, -3).every((name) => name === 'content_block_delta'));
    for (const event of events) assert.equal((event.data as { type: string }).type, event.event);
    const delta = events.at(-2)?.data as {
      usage: { input_tokens: number; output_tokens: number; cost_usd: number };
      delta: { stop_reason: string };
    };
    assert.equal(delta.delta.stop_reason, 'end_turn');
    assert.ok(delta.usage.input_tokens > 0 && delta.usage.output_tokens > 0);
    const expected = (delta.usage.input_tokens * 0.15 + delta.usage.output_tokens * 0.6) / 1e6;
    assert.ok(Math.abs((delta.usage.cost_usd as number) - expected) < 1e-9);
  });

  it('count_tokens counts system, messages and tools with the gateway tokenizer', async () => {
    const plain = await client.messages.countTokens({ model: MODEL, messages: [question] });
    const withSystem = await client.messages.countTokens({
      model: MODEL,
      system: 'You are a careful assistant who answers in one sentence.',
      messages: [question],
    });
    const withTools = await client.messages.countTokens({
      model: MODEL,
      messages: [question],
      tools: [
        {
          name: 'get_weather',
          description: 'The weather in a city',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
    });
    assert.ok(Number.isInteger(plain.input_tokens) && plain.input_tokens > 0);
    assert.ok(withSystem.input_tokens > plain.input_tokens);
    assert.ok(withTools.input_tokens > plain.input_tokens);
    // The same count a message request is charged with on the simulated provider, tools included.
    const answer = await client.messages.create({ model: MODEL, max_tokens: 5, messages: [question] });
    assert.equal(plain.input_tokens, answer.usage.input_tokens);
    const withToolsAnswer = await client.messages.create({
      model: MODEL,
      max_tokens: 5,
      messages: [question],
      tools: [
        {
          name: 'get_weather',
          description: 'The weather in a city',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
      tool_choice: { type: 'none' },
    });
    assert.equal(withTools.input_tokens, withToolsAnswer.usage.input_tokens);
    assert.equal(gw.callsTo('provider-a') > 0, true);
  });

  it('count_tokens calls no upstream', async () => {
    const before = gw.calls.length;
    await client.messages.countTokens({ model: MODEL, messages: [question] });
    assert.equal(gw.calls.length, before);
  });
});

describe('the Anthropic door in the usage ledger', () => {
  it("records each request once, with front door 'anthropic'; count_tokens records nothing", async (t) => {
    const gw = await startGateway(t);
    const client = anthropicClient(await listenForClients(gw));
    await client.messages.create({ model: MODEL, max_tokens: 20, messages: [question] });
    await client.messages.stream({ model: MODEL, max_tokens: 20, messages: [question] }).finalMessage();
    await client.messages.countTokens({ model: MODEL, messages: [question] });
    assert.equal((await gw.chat({ messages: [question] })).status, 200);
    await gw.app.recorder.flush();
    const res = await gw.get('/v1/usage?groupBy=frontDoor,operation');
    assert.equal(res.status, 200);
    const rows = Object.fromEntries(
      res.body.rows.map((row: { frontDoor: string; operation: string; requests: number }) => [
        `${row.frontDoor} ${row.operation}`,
        row.requests,
      ]),
    );
    assert.deepEqual(rows, { 'anthropic chat': 1, 'anthropic chat_stream': 1, 'native chat': 1 });
  });
});
