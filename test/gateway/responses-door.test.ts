import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { listenForClients } from '../helpers/anthropic-door-client.ts';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';
import { checkResponseResource, checkResponseStream } from '../helpers/open-responses-schema.ts';
import { parseSse } from '../helpers/parse-sse.ts';

/**
 * POST /v1/responses on an OpenAI slot (the strict Chat Completions mock): the official SDK's
 * `responses.create` and `responses.stream`, raw streams checked event by event against the Open
 * Responses specification, the tool kinds Codex sends (function, custom, namespace, hosted), and
 * the errors in OpenAI's shape.
 */

const MODEL = 'provider-a/gpt-4o-mini';
const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The current weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

function lastSent(mock: MockOpenAIServer): Record<string, any> {
  return (mock.requests.at(-1)?.body ?? {}) as Record<string, any>;
}

function lastEvent(text: string): Record<string, any> {
  return (parseSse(text).at(-1)?.data ?? {}) as Record<string, any>;
}

describe('the Responses door on an OpenAI slot', () => {
  let mock: MockOpenAIServer;
  before(async () => {
    mock = await startMockOpenAI({ apiKey: 'sk-upstream' });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'openai', PROVIDER_A_BASE_URL: mock.baseUrl, PROVIDER_A_API_KEY: 'sk-upstream' },
  }));
  after(() => mock.close());
  let client: OpenAI;
  before(async () => {
    client = new OpenAI({
      baseURL: `${await listenForClients(gw)}/v1`,
      apiKey: `${APP}:${SECRET}`,
      maxRetries: 0,
    });
  });

  it('answers responses.create with a schema-valid Response, its usage and cost', async () => {
    mock.replyNext({ text: 'PONG', usage: { inputTokens: 30, cacheReadTokens: 10, outputTokens: 2 } });
    const { data, response } = await client.responses
      .create({ model: MODEL, instructions: 'Be brief.', input: 'Say PONG.' })
      .withResponse();
    assert.deepEqual(checkResponseResource(data), []);
    assert.equal(data.status, 'completed');
    assert.equal(data.output_text, 'PONG');
    assert.match(data.id, /^resp_[0-9a-f]{32}$/);
    assert.equal(data.instructions, 'Be brief.');
    assert.equal((data as unknown as { store: boolean }).store, false);
    assert.deepEqual(data.usage, {
      input_tokens: 30,
      input_tokens_details: { cached_tokens: 10 },
      output_tokens: 2,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 32,
    });
    assert.match(String(response.headers.get('x-gateway-cost-usd')), /^\d/);
    const sent = mock.requests.at(-1)?.body as Record<string, any>;
    assert.deepEqual(sent['messages'], [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Say PONG.' },
    ]);
  });

  it('streams text as the specification lists the events, every one valid and numbered', async () => {
    mock.replyNext({ text: 'Hello there, streaming world.' });
    const reply = await gw.post(
      '/v1/responses',
      {
        model: MODEL,
        stream: true,
        input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] }],
      },
      { headers: { authorization: `Bearer ${APP}:${SECRET}` }, auth: false },
    );
    assert.equal(reply.status, 200);
    const events = parseSse(reply.text).map((event) => event.data as Record<string, any>);
    assert.deepEqual(checkResponseStream(events), []);
    const types = events.map((event) => event['type']);
    assert.deepEqual(types.slice(0, 4), [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    assert.deepEqual(types.slice(-4), [
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const text = events
      .filter((e) => e['type'] === 'response.output_text.delta')
      .map((e) => e['delta'])
      .join('');
    assert.equal(text, 'Hello there, streaming world.');
    const done = events.at(-1)?.['response'];
    assert.equal(done.output[0].content[0].text, 'Hello there, streaming world.');
    assert.ok(done.usage.total_tokens > 0);
    assert.equal(typeof done.usage.cost_usd, 'number');
  });

  it('the SDK stream reads a function call, and the next turn sends the call and its output upstream', async () => {
    mock.replyNext({ toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Paris' } }] });
    const stream = client.responses.stream({
      model: MODEL,
      input: 'Weather in Paris?',
      tools: [weatherTool],
    });
    const first = await stream.finalResponse();
    assert.deepEqual(checkResponseResource(first), []);
    const call = first.output.find((item) => item.type === 'function_call');
    assert.ok(call?.type === 'function_call');
    assert.equal(call.name, 'get_weather');
    assert.equal(call.call_id, 'call_w1');
    assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris' });
    mock.replyNext({ text: 'Sunny.' });
    const second = await client.responses.create({
      model: MODEL,
      tools: [weatherTool],
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        call,
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
      ],
    });
    assert.equal(second.output_text, 'Sunny.');
    const sent = mock.requests.at(-1)?.body as Record<string, any>;
    assert.deepEqual(sent['messages'].slice(1), [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_w1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_w1', content: 'sunny' },
    ]);
  });

  it('carries a custom tool as one string argument and answers a custom_tool_call, streamed and not', async () => {
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n';
    const applyPatch = {
      type: 'custom',
      name: 'apply_patch',
      description: 'Edit files.',
      format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' },
    };
    for (const stream of [false, true]) {
      mock.replyNext({ toolCalls: [{ id: 'call_p1', name: 'apply_patch', arguments: { input: patch } }] });
      const reply = await gw.post(
        '/v1/responses',
        { model: MODEL, stream, input: 'Add a.txt', tools: [applyPatch] },
        { headers: { authorization: `Bearer ${APP}:${SECRET}` }, auth: false },
      );
      assert.equal(reply.status, 200);
      const sentTool = lastSent(mock)['tools'][0];
      assert.equal(sentTool.function.name, 'apply_patch');
      assert.deepEqual(sentTool.function.parameters.required, ['input']);
      const response = stream ? lastEvent(reply.text)['response'] : reply.body;
      assert.deepEqual(response.output, [
        {
          type: 'custom_tool_call',
          id: response.output[0].id,
          status: 'completed',
          call_id: 'call_p1',
          name: 'apply_patch',
          input: patch,
        },
      ]);
      if (stream) {
        const types = parseSse(reply.text).map((e) => e.event);
        assert.ok(types.includes('response.custom_tool_call_input.delta'));
        assert.ok(types.includes('response.custom_tool_call_input.done'));
      }
    }
    mock.replyNext({ text: 'Done.' });
    await client.responses.create({
      model: MODEL,
      tools: [applyPatch as never],
      input: [
        { role: 'user', content: 'Add a.txt' },
        { type: 'custom_tool_call', call_id: 'call_p1', name: 'apply_patch', input: patch },
        { type: 'custom_tool_call_output', call_id: 'call_p1', output: 'Success.' },
      ],
    });
    const sent = mock.requests.at(-1)?.body as Record<string, any>;
    assert.deepEqual(sent['messages'][1].tool_calls[0].function, {
      name: 'apply_patch',
      arguments: JSON.stringify({ input: patch }),
    });
    assert.deepEqual(sent['messages'][2], { role: 'tool', tool_call_id: 'call_p1', content: 'Success.' });
  });

  it('flattens namespace tools upstream and answers with name and namespace apart', async () => {
    mock.replyNext({ toolCalls: [{ id: 'call_n1', name: 'mcp__files__read', arguments: { path: 'a' } }] });
    const reply = await gw.post(
      '/v1/responses',
      {
        model: MODEL,
        input: 'Read a',
        tools: [
          {
            type: 'namespace',
            name: 'mcp__files',
            description: 'File tools',
            tools: [
              {
                type: 'function',
                name: 'read',
                parameters: { type: 'object', properties: { path: { type: 'string' } } },
              },
            ],
          },
        ],
      },
      { headers: { authorization: `Bearer ${APP}:${SECRET}` }, auth: false },
    );
    assert.equal(reply.status, 200, reply.text);
    const sent = mock.requests.at(-1)?.body as Record<string, any>;
    assert.deepEqual(
      sent['tools'].map((tool: any) => tool.function.name),
      ['mcp__files__read'],
    );
    const call = reply.body.output[0];
    assert.equal(call.type, 'function_call');
    assert.equal(call.name, 'read');
    assert.equal(call.namespace, 'mcp__files');
    assert.deepEqual(Object.keys(call), [
      'type',
      'id',
      'status',
      'call_id',
      'name',
      'namespace',
      'arguments',
    ]);
  });

  it('leaves hosted tools out and names their types in x-gateway-ignored-tools', async () => {
    mock.replyNext({ text: 'ok' });
    const reply = await gw.post(
      '/v1/responses',
      {
        model: MODEL,
        input: 'hi',
        tools: [
          weatherTool,
          { type: 'web_search', external_web_access: false },
          { type: 'tool_search', execution: 'client' },
          { type: 'web_search' },
          { type: 'image_generation' },
        ],
      },
      { headers: { authorization: `Bearer ${APP}:${SECRET}` }, auth: false },
    );
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.headers['x-gateway-ignored-tools'], 'web_search,tool_search,image_generation');
    const sent = mock.requests.at(-1)?.body as Record<string, any>;
    assert.deepEqual(
      sent['tools'].map((tool: any) => tool.function.name),
      ['get_weather'],
    );
    assert.deepEqual(
      reply.body.tools.map((tool: any) => tool.type),
      ['function'],
    );
  });
});

describe('the Responses door refusals, in OpenAI error shape', () => {
  const gw = shareGateway();
  const bearer = { headers: { authorization: `Bearer ${APP}:${SECRET}` }, auth: false };

  it('a body without model is a 400 naming it', async () => {
    const reply = await gw.post('/v1/responses', { input: 'hi' }, bearer);
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error.type, 'invalid_request_error');
    assert.equal(reply.body.error.param, 'model');
  });

  it('an image the gateway cannot carry is a 400 naming the field', async () => {
    const ask = (content: unknown[]) =>
      gw.post('/v1/responses', { model: 'anything', input: [{ role: 'user', content }] }, bearer);
    const byId = await ask([{ type: 'input_image', file_id: 'file-abc' }]);
    assert.equal(byId.status, 400);
    assert.equal(byId.body.error.param, 'input[0].content[0].file_id');
    const byHttp = await ask([{ type: 'input_image', image_url: 'http://example.com/a.png' }]);
    assert.equal(byHttp.body.error.param, 'input[0].content[0].image_url');
    const notBase64 = await ask([{ type: 'input_file', file_data: 'data:application/pdf;base64,@@@@' }]);
    assert.equal(notBase64.body.error.param, 'input[0].content[0].file_data');
    const onAssistant = await gw.post(
      '/v1/responses',
      {
        model: 'anything',
        input: [
          { role: 'assistant', content: [{ type: 'input_image', image_url: 'https://example.com/a.png' }] },
        ],
      },
      bearer,
    );
    assert.equal(onAssistant.status, 400);
    assert.equal(onAssistant.body.error.param, 'input[0].content[0].type');
    const effort = await gw.post(
      '/v1/responses',
      { model: 'anything', input: 'x', reasoning: { effort: 'max' } },
      bearer,
    );
    assert.equal(effort.body.error.param, 'reasoning.effort');
  });

  it('a tool output answering no call is a 400 naming its item', async () => {
    const reply = await gw.post(
      '/v1/responses',
      {
        model: 'anything',
        input: [
          { role: 'user', content: 'hi' },
          { type: 'function_call_output', call_id: 'nope', output: 'x' },
        ],
      },
      bearer,
    );
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error.param, 'input[1]');
  });

  it('POST /v1/responses/compact is a 404', async () => {
    const reply = await gw.post('/v1/responses/compact', { model: 'x', input: [] }, bearer);
    assert.equal(reply.status, 404);
    assert.equal(reply.body.error.type, 'not_found_error');
  });

  it('a WebSocket upgrade is refused at once with 426', async () => {
    const reply = await gw.get('/v1/responses', {
      headers: {
        ...bearer.headers,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
      auth: false,
    });
    assert.equal(reply.status, 426);
    assert.equal(reply.body.error.type, 'invalid_request_error');
  });

  it('without credentials is a 401 in OpenAI shape', async () => {
    const reply = await gw.post('/v1/responses', { model: 'x', input: 'hi' }, { auth: false });
    assert.equal(reply.status, 401);
    assert.equal(reply.body.error.type, 'authentication_error');
  });
});

describe('the Responses door and the body limit', () => {
  const gw = shareGateway({ env: { MAX_BODY_BYTES: '2048' } });

  it('a body over MAX_BODY_BYTES is a 413 in OpenAI shape', async () => {
    const reply = await gw.post(
      '/v1/responses',
      { model: 'chat', input: 'x'.repeat(4096) },
      { headers: { authorization: `Bearer ${APP}:${SECRET}` }, auth: false },
    );
    assert.equal(reply.status, 413);
    assert.equal(reply.body.error.type, 'invalid_request_error');
    assert.equal(reply.body.error.code, 'payload_too_large');
  });
});
