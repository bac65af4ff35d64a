import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { anthropicClient, listenForClients } from '../helpers/anthropic-door-client.ts';
import { APP, AUTH, SECRET, shareGateway, startGateway } from '../helpers/gateway-harness.ts';

const MODEL = 'simulated-chat';
const question = { role: 'user' as const, content: 'Tell me about the gateway.' };

/** Runs `call`, expects it to throw `type`, and returns the error for closer checks. */
async function rejection<T extends abstract new (...args: never[]) => Error>(
  call: () => Promise<unknown>,
  type: T,
): Promise<InstanceType<T>> {
  try {
    await call();
  } catch (error) {
    assert.ok(error instanceof type, `expected ${type.name}, got ${String(error)}`);
    return error as InstanceType<T>;
  }
  assert.fail(`expected ${type.name}, got an answer`);
}

/** The body of an APIError as the gateway sent it. */
function errorBody(error: InstanceType<typeof Anthropic.APIError>): {
  type: string;
  error: { type: string; message: string };
} {
  return error.error as { type: string; error: { type: string; message: string } };
}

describe('the Anthropic door: errors the SDK raises as its own types', () => {
  const gw = shareGateway({ env: { MAX_BODY_BYTES: '65536' } });
  let baseURL: string;
  let client: Anthropic;
  before(async () => {
    baseURL = await listenForClients(gw);
    client = anthropicClient(baseURL);
  });

  it('400 invalid_request_error for a missing max_tokens, naming the field', async () => {
    const error = await rejection(
      () => client.messages.create({ model: MODEL, messages: [question] } as never),
      Anthropic.BadRequestError,
    );
    assert.equal(error.status, 400);
    assert.equal(errorBody(error).type, 'error');
    assert.equal(errorBody(error).error.type, 'invalid_request_error');
    assert.match(errorBody(error).error.message, /^max_tokens: field required/);
  });

  it('400 for a block no other vendor has (a search result, citations), naming it', async () => {
    const searchResult = await rejection(
      () =>
        client.messages.create({
          model: MODEL,
          max_tokens: 10,
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'what is this?' },
                { type: 'search_result', source: 'https://example.com', title: 't', content: [] },
              ],
            },
          ],
        } as never),
      Anthropic.BadRequestError,
    );
    assert.match(
      errorBody(searchResult).error.message,
      /^messages\.0\.content\.1\.type: 'search_result' blocks are not supported/,
    );
    const citations = await rejection(
      () =>
        client.messages.create({
          model: MODEL,
          max_tokens: 10,
          messages: [
            {
              role: 'user',
              content: [
                {
                  type: 'document',
                  source: { type: 'text', media_type: 'text/plain', data: 'The sky is blue.' },
                  citations: { enabled: true },
                },
              ],
            },
          ],
        } as never),
      Anthropic.BadRequestError,
    );
    assert.match(errorBody(citations).error.message, /^messages\.0\.content\.0\.citations: not supported/);
  });

  it('400 for a server tool; thinking blocks in the history are taken (and left out for this vendor)', async () => {
    const serverTool = await rejection(
      () =>
        client.messages.create({
          model: MODEL,
          max_tokens: 10,
          messages: [question],
          tools: [{ type: 'web_search_20250305', name: 'web_search' }],
        } as never),
      Anthropic.BadRequestError,
    );
    assert.match(errorBody(serverTool).error.message, /^tools\.0\.type: 'web_search_20250305' tools/);
    const answer = await client.messages.create({
      model: MODEL,
      max_tokens: 10,
      messages: [
        question,
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: 'x' }] },
        { role: 'user', content: 'go on' },
      ],
    });
    assert.equal(answer.type, 'message');
  });

  it('401 authentication_error for a wrong key, and for none', async () => {
    const wrong = await rejection(
      () =>
        anthropicClient(baseURL, `${APP}:not-the-secret`).messages.create({
          model: MODEL,
          max_tokens: 5,
          messages: [question],
        }),
      Anthropic.AuthenticationError,
    );
    assert.equal(errorBody(wrong).error.type, 'authentication_error');
    const res = await fetch(`${baseURL}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, max_tokens: 5, messages: [question] }),
    });
    assert.equal(res.status, 401);
    const body = (await res.json()) as { type: string; error: { type: string } };
    assert.equal(body.type, 'error');
    assert.equal(body.error.type, 'authentication_error');
  });

  it("an upstream's own 400 is BadRequestError (400 invalid_request_error), not retried by the SDK (contract 5.2)", async () => {
    const error = await rejection(
      () =>
        client.messages.create({
          model: MODEL,
          max_tokens: 5,
          messages: [question],
          metadata: { simulated: { fault: 'bad_request' } },
        } as never),
      Anthropic.BadRequestError,
    );
    assert.equal(error.status, 400);
    assert.equal(errorBody(error).error.type, 'invalid_request_error');
    assert.match(errorBody(error).error.message, /rejected the request \(HTTP 400\)/);
  });

  it('an upstream that keeps timing out is 504 timeout_error (GatewayTimeoutError)', async () => {
    const timeout = await rejection(
      () =>
        client.messages.create({
          model: MODEL,
          max_tokens: 5,
          messages: [question],
          metadata: { simulated: { fault: 'timeout' } },
        } as never),
      Anthropic.GatewayTimeoutError,
    );
    assert.equal(timeout.status, 504);
    assert.equal(errorBody(timeout).error.type, 'timeout_error');
  });

  it('a failure after the first byte is an error event, which the stream helper raises', async () => {
    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 200,
      messages: [question],
      metadata: { simulated: { fault: 'stream_cut' } },
    } as never);
    const error = await rejection(() => stream.finalMessage(), Anthropic.APIError);
    assert.equal(errorBody(error).error.type, 'api_error');
  });

  it("malformed JSON, a body that is not an object, a wrong content type and an oversized body: Anthropic's shape", async () => {
    const post = (body: string, contentType = 'application/json') =>
      gw.gateway.inject({
        method: 'POST',
        url: '/v1/messages',
        headers: { ...AUTH, 'content-type': contentType },
        payload: body,
      });
    const cases: [Awaited<ReturnType<typeof post>>, number, string][] = [
      [await post('{"model":'), 400, 'invalid_request_error'],
      [await post('[1,2]'), 400, 'invalid_request_error'],
      [await post('"text"'), 400, 'invalid_request_error'],
      [await post('model=x', 'application/x-www-form-urlencoded'), 415, 'invalid_request_error'],
      [await post(JSON.stringify({ pad: 'x'.repeat(70_000) })), 413, 'request_too_large'],
    ];
    for (const [res, status, type] of cases) {
      assert.equal(res.statusCode, status, res.body);
      const body = res.json();
      assert.equal(body.type, 'error');
      assert.equal(body.error.type, type);
      assert.equal(typeof body.error.message, 'string');
      assert.equal(body.request_id, res.headers['x-request-id']);
    }
  });

  it('404 not_found_error for what the door does not have (a message batch it never made), 405 for a wrong method', async () => {
    const error = await rejection(
      () => client.messages.batches.retrieve('msgbatch_0123456789abcdef'),
      Anthropic.NotFoundError,
    );
    assert.equal(errorBody(error).error.type, 'not_found_error');
    const res = await gw.gateway.inject({ method: 'GET', url: '/v1/messages', headers: AUTH });
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers.allow, 'POST');
    assert.equal(res.json().error.type, 'invalid_request_error');
  });

  it('count_tokens refuses what messages refuses, in the same shape', async () => {
    const error = await rejection(
      () => client.messages.countTokens({ model: MODEL, messages: [] }),
      Anthropic.BadRequestError,
    );
    assert.match(errorBody(error).error.message, /^messages: must contain at least one message/);
  });
});

describe('the Anthropic door: 429', () => {
  it('rate_limit_error past the app limit, with Retry-After', async (t) => {
    const gw = await startGateway(t, { file: { limits: { apps: { [APP]: { concurrentRequests: 1 } } } } });
    const client = anthropicClient(await listenForClients(gw), `${APP}:${SECRET}`);
    const slow = client.messages.create({
      model: MODEL,
      max_tokens: 5,
      messages: [question],
      metadata: { simulated: { latencyMs: 300 } },
    } as never);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const error = await rejection(
      () => client.messages.create({ model: MODEL, max_tokens: 5, messages: [question] }),
      Anthropic.RateLimitError,
    );
    assert.equal(errorBody(error).error.type, 'rate_limit_error');
    assert.ok(Number(error.headers?.get('retry-after')) >= 1);
    await slow;
  });
});
