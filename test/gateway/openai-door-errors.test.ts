import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { APP, SECRET, shareGateway, startGateway } from '../helpers/gateway-harness.ts';
import { clockAtMinuteStart } from '../helpers/minute-clock.ts';

const messages = [{ role: 'user' as const, content: 'hi' }];
const fault = (simulated: Record<string, unknown>) => ({ metadata: { simulated } as never });

/** An OpenAI error body as the door writes it: every field OpenAI's SDKs read, and no other. */
function assertOpenAIError(body: unknown, status: number, code: string): void {
  const error = (body as { error: Record<string, unknown> }).error;
  assert.deepEqual(Object.keys(error).sort(), ['code', 'message', 'param', 'type']);
  assert.equal(error.code, code, `status ${status}`);
  assert.equal(typeof error.message, 'string');
}

describe('OpenAI door: errors in OpenAI shape, raised by the SDK as its typed errors', () => {
  const gw = shareGateway();
  let origin = '';
  const client = (apiKey = `${APP}:${SECRET}`, headers: Record<string, string> = {}) =>
    new OpenAI({
      baseURL: `${origin}/v1`,
      apiKey,
      maxRetries: 0,
      defaultHeaders: { 'x-gateway-app': APP, 'x-gateway-secret': SECRET, ...headers },
    });
  before(async () => {
    await gw.gateway.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(gw.gateway.server.address() as AddressInfo).port}`;
  });

  it('400: a schema failure names the parameter', async () => {
    await assert.rejects(
      client().chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
        temperature: 5,
      }),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.BadRequestError);
        assert.equal(error.status, 400);
        assert.equal(error.param, 'temperature');
        assert.equal(error.code, 'invalid_request');
        return true;
      },
    );
  });

  it('401: a wrong key is an AuthenticationError', async () => {
    await assert.rejects(
      client('nobody:nothing', { 'x-gateway-app': APP, 'x-gateway-secret': 'wrong' }).chat.completions.create(
        {
          model: 'm',
          messages,
        },
      ),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.AuthenticationError, String(error));
        assert.equal(error.type, 'authentication_error');
        assert.equal(error.code, 'unauthorized');
        return true;
      },
    );
  });

  it("a 401 from the auth hook on the embeddings route is in OpenAI's shape too", async () => {
    const raw = await gw.post('/v1/embeddings', { model: 'm', input: 'x' }, { auth: false });
    assert.equal(raw.status, 401);
    assertOpenAIError(raw.body, 401, 'unauthorized');
  });

  it('5xx: an upstream server error is an InternalServerError', async () => {
    await assert.rejects(
      client().chat.completions.create({ model: 'm', messages, ...fault({ fault: 'server_error' }) }),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.InternalServerError, String(error));
        assert.ok(error.status >= 500);
        assert.equal(error.type, 'server_error');
        return true;
      },
    );
  });

  it("Fastify's own 400 (bad JSON), 413 and 415 come in OpenAI's shape", async () => {
    const auth = { 'x-gateway-app': APP, 'x-gateway-secret': SECRET };
    const badJson = await gw.gateway.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"model": "m", "messages": [',
    });
    assert.equal(badJson.statusCode, 400);
    assertOpenAIError(badJson.json(), 400, 'invalid_json');
    const text = await gw.gateway.inject({
      method: 'POST',
      url: '/v1/embeddings',
      headers: { ...auth, 'content-type': 'text/plain' },
      payload: 'hello',
    });
    assert.equal(text.statusCode, 415);
    assertOpenAIError(text.json(), 415, 'unsupported_media_type');
    const big = await gw.gateway.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify({
        model: 'm',
        messages: [{ role: 'user', content: 'x'.repeat(5 * 1024 * 1024) }],
      }),
    });
    assert.equal(big.statusCode, 413);
    assertOpenAIError(big.json(), 413, 'payload_too_large');
  });

  it('malformed bodies of every kind are 400s, never 500s', async () => {
    const bodies: unknown[] = [
      null,
      [],
      {},
      { model: 'm' },
      { model: 'm', messages: [] },
      { model: 'm', messages: [{ role: 'wizard', content: 'x' }] },
      { model: 'm', messages: [{ role: 'user' }] },
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'text' }] }] },
      { model: 'm', messages: [{ role: 'tool', content: 'x' }] },
      { model: 'm', messages: [{ role: 'assistant', content: null }] },
      { model: 'm', messages: [{ role: 'function', name: 'f', content: 'x' }] },
      { model: 'm', messages, tools: [{ type: 'custom', custom: { name: 'x' } }] },
      { model: 'm', messages, tools: [{ type: 'function' }] },
      { model: 'm', messages, tool_choice: { type: 'allowed_tools' } },
      { model: 'm', messages, response_format: { type: 'json_schema' } },
      { model: 'm', messages, stop: ['a', 'b', 'c', 'd', 'e'] },
      { model: 'm', messages, functions: [{ name: 'f' }] },
      { model: 'm', messages, top_p: 0.5 },
      { model: 'm', messages, logit_bias: { '50256': -100 } },
      {
        model: 'm',
        messages: [{ role: 'assistant', content: 'x', tool_calls: [{ id: 'c', type: 'custom' }] }],
      },
    ];
    for (const body of bodies) {
      const reply = await gw.post('/v1/chat/completions', body);
      assert.equal(reply.status, 400, JSON.stringify(body));
      const error = (reply.body as { error: { type: string } }).error;
      assert.equal(error.type, 'invalid_request_error', JSON.stringify(body));
    }
    for (const body of [
      { model: 'm', input: [1, 2, 3] },
      { model: 'm', input: '' },
      { model: 'm', input: [['a']] },
    ]) {
      const reply = await gw.post('/v1/embeddings', body);
      assert.equal(reply.status, 400, JSON.stringify(body));
      assert.equal(
        (reply.body as { error: { param: string } }).error.param,
        body.input === '' ? 'input' : 'input[0]',
      );
    }
  });
});

describe("OpenAI door: the app's own limits", () => {
  it('429 past the request limit is a RateLimitError, with Retry-After', async (t) => {
    const gw = await startGateway(t, {
      file: { limits: { apps: { [APP]: { requestsPerMinute: 1 } } } },
      clock: clockAtMinuteStart(),
    });
    await gw.gateway.listen({ port: 0, host: '127.0.0.1' });
    const client = new OpenAI({
      baseURL: `http://127.0.0.1:${(gw.gateway.server.address() as AddressInfo).port}/v1`,
      apiKey: `${APP}:${SECRET}`,
      maxRetries: 0,
    });
    await client.chat.completions.create({ model: 'm', messages });
    await assert.rejects(client.chat.completions.create({ model: 'm', messages }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.RateLimitError, String(error));
      // OpenAI's own form (CONTRACT 6.1): the limit that ran out as the type, and the wait in the message.
      assert.equal(error.type, 'requests');
      assert.equal(error.code, 'rate_limit_exceeded');
      assert.match(error.message, /Please try again in \d+(\.\d+)?s\.$/);
      assert.ok(Number(error.headers.get('retry-after')) >= 1);
      return true;
    });
  });
});
