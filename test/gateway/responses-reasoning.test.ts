import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { type MockAnthropicServer, startMockAnthropic } from '../helpers/mock-anthropic-server.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';
import { checkResponseResource, checkResponseStream } from '../helpers/open-responses-schema.ts';
import { parseSse } from '../helpers/parse-sse.ts';

/**
 * Reasoning on the Responses door (CONTRACT 5.4): an Anthropic slot's signed thinking comes back as
 * a `reasoning` item whose `encrypted_content` a stateless client (Codex: `store: false`,
 * `include: ["reasoning.encrypted_content"]`) sends back, and the next turn reaches Anthropic with
 * the thinking block and its exact signature; an OpenAI slot's reported reasoning tokens reach
 * `output_tokens_details.reasoning_tokens`.
 */

const AUTH = { headers: { authorization: `Bearer ${APP}:${SECRET}` }, auth: false };
const SIGNATURE = 'EqQBCkgIARABGAIiQGX+a/signed==by/anthropic';
const THINKING = 'The file does not exist yet; write it.';
const writeTool = {
  type: 'function',
  name: 'write_file',
  description: 'Writes a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

function codexTurn(input: unknown[], stream: boolean): Record<string, unknown> {
  return {
    model: 'provider-b/claude-sonnet-4-5',
    stream,
    store: false,
    include: ['reasoning.encrypted_content'],
    reasoning: { effort: 'medium' },
    tools: [writeTool],
    input,
  };
}

describe('the Responses door carries signed thinking across stateless turns (Anthropic slot)', () => {
  let mock: MockAnthropicServer;
  before(async () => {
    mock = await startMockAnthropic({ eventDelayMs: 0 });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_B_KIND: 'anthropic', PROVIDER_B_BASE_URL: mock.origin, PROVIDER_B_API_KEY: 'sk-ant' },
    file: { providers: { 'provider-b': { models: ['claude-sonnet-4-5'] } } },
  }));
  after(() => mock.close());

  const user = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Create a.txt.' }] };

  /** Turn 2: the client's items sent back with the tool's output; the Anthropic body it led to. */
  async function secondTurn(items: unknown[], stream: boolean): Promise<Record<string, any>> {
    const call = items.find((item: any) => item.type === 'function_call') as Record<string, any>;
    mock.replyNext({ text: 'Created a.txt.' });
    const input = [user, ...items, { type: 'function_call_output', call_id: call['call_id'], output: 'ok' }];
    const reply = await gw.post('/v1/responses', codexTurn(input, stream), AUTH);
    assert.equal(reply.status, 200, reply.text);
    return mock.requests.at(-1)?.body as Record<string, any>;
  }

  function assertSignedTurn(sent: Record<string, any>): void {
    assert.deepEqual(sent['thinking']?.type, 'enabled');
    const assistant = (sent['messages'] as any[]).find((message) => message.role === 'assistant');
    assert.ok(Array.isArray(assistant.content));
    assert.deepEqual(assistant.content[0], { type: 'thinking', thinking: THINKING, signature: SIGNATURE });
    assert.equal(assistant.content.at(-1).type, 'tool_use');
  }

  it('a whole answer: a reasoning item first, its token read back into the next turn', async () => {
    mock.replyNext({
      thinking: [{ text: THINKING, signature: SIGNATURE }],
      toolCalls: [{ id: 'toolu_w1', name: 'write_file', arguments: { path: 'a.txt' } }],
    });
    const first = await gw.post('/v1/responses', codexTurn([user], false), AUTH);
    assert.equal(first.status, 200, first.text);
    const body = first.body as Record<string, any>;
    assert.deepEqual(checkResponseResource(body), []);
    const [reasoning, call] = body['output'];
    assert.equal(reasoning.type, 'reasoning');
    assert.deepEqual(reasoning.summary, [{ type: 'summary_text', text: THINKING }]);
    assert.equal(typeof reasoning.encrypted_content, 'string');
    // Opaque, not the signature in clear.
    assert.equal(reasoning.encrypted_content.includes(SIGNATURE), false);
    assert.equal(call.type, 'function_call');
    // Codex sends the item back as it got it (adding `content: null`).
    assertSignedTurn(await secondTurn([{ ...reasoning, content: null }, call], false));
  });

  it('a stream: reasoning events before the call, every event valid, the token read back', async () => {
    mock.replyNext({
      thinking: [{ text: THINKING, signature: SIGNATURE }],
      toolCalls: [{ id: 'toolu_w2', name: 'write_file', arguments: { path: 'a.txt' } }],
    });
    const first = await gw.post('/v1/responses', codexTurn([user], true), AUTH);
    assert.equal(first.status, 200, first.text);
    const events = parseSse(first.text).map((event) => event.data as Record<string, any>);
    assert.deepEqual(checkResponseStream(events), []);
    assert.deepEqual(
      events.slice(2, 8).map((event) => event['type']),
      [
        'response.output_item.added',
        'response.reasoning_summary_part.added',
        'response.reasoning_summary_text.delta',
        'response.reasoning_summary_text.done',
        'response.reasoning_summary_part.done',
        'response.output_item.done',
      ],
    );
    assert.equal(events[2]?.['item'].type, 'reasoning');
    assert.equal(events[4]?.['delta'], THINKING);
    const done = events.filter((event) => event['type'] === 'response.output_item.done');
    const items = done.map((event) => event['item']);
    assert.deepEqual(
      items.map((item) => item.type),
      ['reasoning', 'function_call'],
    );
    const completed = events.at(-1)?.['response'];
    assert.deepEqual(
      completed.output.map((item: any) => item.type),
      ['reasoning', 'function_call'],
    );
    assert.equal(completed.output[0].encrypted_content, items[0].encrypted_content);
    assertSignedTurn(await secondTurn(items, true));
  });

  it('without include and store, the item has its summary but no token', async () => {
    mock.replyNext({ thinking: [{ text: THINKING, signature: SIGNATURE }], text: 'Hi.' });
    const { include: _none, ...body } = codexTurn([user], false);
    const reply = await gw.post('/v1/responses', body, AUTH);
    const reasoning = (reply.body as Record<string, any>)['output'][0];
    assert.equal(reasoning.type, 'reasoning');
    assert.equal('encrypted_content' in reasoning, false);
  });

  it('a stored response carries the token, so previous_response_id keeps the signed thinking', async () => {
    mock.replyNext({
      thinking: [{ text: THINKING, signature: SIGNATURE }],
      toolCalls: [{ id: 'toolu_w3', name: 'write_file', arguments: { path: 'a.txt' } }],
    });
    const { include: _none, ...firstBody } = codexTurn([user], false);
    const first = await gw.post('/v1/responses', { ...firstBody, store: true }, AUTH);
    assert.equal(first.status, 200, first.text);
    const stored = first.body as Record<string, any>;
    assert.equal(typeof stored['output'][0].encrypted_content, 'string');
    mock.replyNext({ text: 'Created a.txt.' });
    const { include: _also, tools, reasoning } = codexTurn([], false);
    const next = await gw.post(
      '/v1/responses',
      {
        model: 'provider-b/claude-sonnet-4-5',
        previous_response_id: stored['id'],
        tools,
        reasoning,
        input: [{ type: 'function_call_output', call_id: 'toolu_w3', output: 'ok' }],
      },
      AUTH,
    );
    assert.equal(next.status, 200, next.text);
    assertSignedTurn(mock.requests.at(-1)?.body as Record<string, any>);
  });

  it("OpenAI's own encrypted reasoning is left out of the Anthropic request", async () => {
    mock.replyNext({ text: 'Created a.txt.' });
    const input = [
      user,
      { type: 'reasoning', id: 'rs_x', summary: [], encrypted_content: 'gAAAAABo-openai-only' },
      { type: 'function_call', call_id: 'call_x', name: 'write_file', arguments: '{"path":"a.txt"}' },
      { type: 'function_call_output', call_id: 'call_x', output: 'ok' },
    ];
    const reply = await gw.post('/v1/responses', codexTurn(input, false), AUTH);
    assert.equal(reply.status, 200, reply.text);
    const sent = mock.requests.at(-1)?.body as Record<string, any>;
    const assistant = (sent['messages'] as any[]).find((message) => message.role === 'assistant');
    assert.equal(
      assistant.content.some((block: any) => block.type === 'thinking'),
      false,
    );
    // Without its thinking the tool loop cannot ask Anthropic for thinking (decision 0018).
    assert.equal(sent['thinking'], undefined);
  });
});

describe('the Responses door reports reasoning tokens (OpenAI slot)', () => {
  let mock: MockOpenAIServer;
  before(async () => {
    mock = await startMockOpenAI({ apiKey: 'sk-upstream' });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'openai', PROVIDER_A_BASE_URL: mock.baseUrl, PROVIDER_A_API_KEY: 'sk-upstream' },
  }));
  after(() => mock.close());

  for (const stream of [false, true]) {
    it(`completion_tokens_details.reasoning_tokens reach output_tokens_details (${stream ? 'streamed' : 'whole'})`, async () => {
      mock.replyNext({ text: 'Done.', usage: { inputTokens: 40, outputTokens: 300, reasoningTokens: 256 } });
      const reply = await gw.post(
        '/v1/responses',
        { model: 'provider-a/gpt-5', stream, input: 'Think, then answer.' },
        AUTH,
      );
      assert.equal(reply.status, 200, reply.text);
      let response: Record<string, any>;
      if (stream) {
        const events = parseSse(reply.text).map((event) => event.data as Record<string, any>);
        assert.deepEqual(checkResponseStream(events), []);
        response = events.at(-1)?.['response'];
      } else {
        response = reply.body as Record<string, any>;
        assert.deepEqual(checkResponseResource(response), []);
      }
      assert.equal(response['usage'].output_tokens, 300);
      assert.deepEqual(response['usage'].output_tokens_details, { reasoning_tokens: 256 });
      assert.equal(response['usage'].total_tokens, 340);
    });
  }
});
