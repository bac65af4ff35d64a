import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { APP, SECRET, startGateway } from '../helpers/gateway-harness.ts';
import { geminiFixture } from '../helpers/mock-gemini-server.ts';
import { shareVendorSlots } from '../helpers/vendor-slots.ts';

/**
 * The Gemini door's failures in Google's shape (CONTRACT 6.1, 6.3, 6.9): `{error: {code, message,
 * status}}` with Google's status names, 429 RESOURCE_EXHAUSTED with Retry-After and RetryInfo, a
 * failed upstream 503 UNAVAILABLE, a prompt too long 400 INVALID_ARGUMENT in Google's words, and a
 * stream broken after its first chunk ended with Google's error object.
 */

const KEY = `${APP}:${SECRET}`;
const hello = { contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] };

function post(
  gw: { gateway: any },
  path: string,
  body: unknown,
  headers: Record<string, string> = { 'x-goog-api-key': KEY },
) {
  return gw.gateway.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe("Gemini door: errors in Google's shape", () => {
  const slots = shareVendorSlots();
  beforeEach(() => {
    slots.gemini.reset();
    slots.openai.reset?.();
  });

  it('no key: 401 UNAUTHENTICATED; the key in ?key= or as a bearer token is accepted', async () => {
    const none = await post(
      slots.gw,
      '/v1beta/models/provider-b/gemini-2.5-flash:generateContent',
      hello,
      {},
    );
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().error.status, 'UNAUTHENTICATED');
    assert.equal(none.json().error.code, 401);
    const query = await post(
      slots.gw,
      `/v1beta/models/provider-b/gemini-2.5-flash:generateContent?key=${encodeURIComponent(KEY)}`,
      hello,
      {},
    );
    assert.equal(query.statusCode, 200, query.body);
    const bearer = await post(slots.gw, '/v1/models/provider-b/gemini-2.5-flash:generateContent', hello, {
      authorization: `Bearer ${KEY}`,
    });
    assert.equal(bearer.statusCode, 200, bearer.body);
  });

  it('an unknown method is 404 NOT_FOUND; a body that is not a request is 400 INVALID_ARGUMENT', async () => {
    const unknown = await post(slots.gw, '/v1beta/models/provider-b/gemini-2.5-flash:predict', hello);
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error.status, 'NOT_FOUND');
    const bad = await post(slots.gw, '/v1beta/models/provider-a/gpt-4o-mini:generateContent', {
      contents: [],
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.status, 'INVALID_ARGUMENT');
    assert.match(bad.json().error.message, /contents/);
    const malformed = await post(
      slots.gw,
      '/v1beta/models/provider-a/gpt-4o-mini:generateContent',
      '{"contents":',
    );
    assert.equal(malformed.statusCode, 400);
    assert.equal(malformed.json().error.status, 'INVALID_ARGUMENT');
    // A POST with no body at all (found by the endpoint fuzzer): the same 400 on the lane's routes.
    for (const url of [
      '/v1beta/models/provider-b/gemini-2.5-flash:generateContent',
      '/v1/models/provider-b/gemini-2.5-flash:streamGenerateContent',
    ]) {
      const empty = await slots.gw.gateway.inject({
        method: 'POST',
        url,
        headers: { 'x-goog-api-key': KEY },
      });
      assert.equal(empty.statusCode, 400, empty.body);
      assert.equal(empty.json().error.status, 'INVALID_ARGUMENT');
    }
  });

  it("an upstream's daily quota: 429 RESOURCE_EXHAUSTED with Retry-After and RetryInfo", async () => {
    slots.gemini.failNext(1, { status: 429, body: geminiFixture('error-429-per-day.json') });
    const reply = await post(slots.gw, '/v1beta/models/provider-b/gemini-2.5-flash:generateContent', hello);
    assert.equal(reply.statusCode, 429, reply.body);
    const error = reply.json().error;
    assert.equal(error.status, 'RESOURCE_EXHAUSTED');
    const seconds = Number(reply.headers['retry-after']);
    assert.ok(seconds >= 1);
    assert.deepEqual(error.details, [
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s` },
    ]);
  });

  it("an upstream's per-minute limit that outlasts the retries: 429 RESOURCE_EXHAUSTED with the wait it named", async () => {
    slots.gemini.failNext(20, { status: 429, body: geminiFixture('error-429-per-minute.json') });
    const reply = await post(slots.gw, '/v1beta/models/provider-b/gemini-2.5-flash:generateContent', hello);
    assert.equal(reply.statusCode, 429, reply.body);
    const error = reply.json().error;
    assert.equal(error.status, 'RESOURCE_EXHAUSTED');
    const seconds = Number(reply.headers['retry-after']);
    assert.ok(seconds >= 1, String(seconds));
    assert.equal(error.details[0].retryDelay, `${seconds}s`);
  });

  it('an upstream that keeps failing: 503 UNAVAILABLE (Google has no 502)', async () => {
    slots.openai.failNext(20, { status: 500, body: { error: { message: 'boom', type: 'server_error' } } });
    const reply = await post(slots.gw, '/v1beta/models/provider-a/gpt-4o-mini:generateContent', hello);
    assert.equal(reply.statusCode, 503, reply.body);
    assert.equal(reply.json().error.status, 'UNAVAILABLE');
  });

  it("an OpenAI upstream's context overflow reads as Google's: 400 INVALID_ARGUMENT, the input token count exceeds the maximum", async () => {
    slots.openai.failNext(1, {
      status: 400,
      body: {
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      },
    });
    const reply = await post(slots.gw, '/v1beta/models/provider-a/gpt-4o-mini:generateContent', hello);
    assert.equal(reply.statusCode, 400, reply.body);
    assert.equal(reply.json().error.status, 'INVALID_ARGUMENT');
    assert.equal(
      reply.json().error.message,
      'The input token count (130512) exceeds the maximum number of tokens allowed (128000).',
    );
  });

  it("a same-vendor stream broken after its first chunk ends with Google's error object", async () => {
    const first = geminiFixture('stream-generate-content.sse').split('\r\n\r\n')[0];
    slots.gemini.failNext(1, {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: `${first}\r\n\r\ndata: {"error": {"code": 500, "message": "An internal error has occurred.", "status": "INTERNAL"}}\r\n\r\n`,
    });
    const reply = await post(
      slots.gw,
      '/v1beta/models/provider-b/gemini-2.5-flash:streamGenerateContent?alt=sse',
      hello,
    );
    assert.equal(reply.statusCode, 200);
    const data = reply.body.split('\r\n\r\n').filter((frame: string) => frame.startsWith('data: '));
    assert.equal(data.length, 2, reply.body);
    assert.equal(JSON.parse(data[1].slice(6)).error.status, 'INTERNAL');
  });

  it("a translated stream broken after its first chunk ends with Google's error object", async () => {
    const chunk = {
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }],
    };
    slots.openai.failNext(1, {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: `data: ${JSON.stringify(chunk)}\n\n`,
    });
    const reply = await post(
      slots.gw,
      '/v1beta/models/provider-a/gpt-4o-mini:streamGenerateContent?alt=sse',
      hello,
    );
    assert.equal(reply.statusCode, 200);
    const data = reply.body
      .split('\r\n\r\n')
      .filter((frame: string) => frame.startsWith('data: '))
      .map((frame: string) => JSON.parse(frame.slice(6)));
    assert.equal(data[0].candidates[0].content.parts[0].text, 'Hel');
    const last = data.at(-1);
    assert.ok(['UNAVAILABLE', 'INTERNAL'].includes(last.error.status), JSON.stringify(last));
  });
});

describe("Gemini door: the gateway's own limits", () => {
  it('an exhausted daily budget: 429 RESOURCE_EXHAUSTED whose message names the budget', async (t) => {
    const gw = await startGateway(t, {
      file: {
        prices: { 'simulated-chat': { inputPerMTok: 100000, outputPerMTok: 100000 } },
        limits: { apps: { [APP]: { dailyBudgetUsd: 0.01 } } },
      },
    });
    const statuses: number[] = [];
    let refusal: any;
    for (let i = 0; i < 6 && refusal === undefined; i++) {
      const reply = await post(gw, '/v1beta/models/provider-a/chat:generateContent', {
        ...hello,
        generationConfig: { maxOutputTokens: 40 },
      });
      statuses.push(reply.statusCode);
      if (reply.statusCode === 429) refusal = reply;
    }
    assert.ok(refusal !== undefined, `statuses ${statuses}`);
    assert.equal(refusal.json().error.status, 'RESOURCE_EXHAUSTED');
    assert.match(refusal.json().error.message, /budget/);
    assert.ok(Number(refusal.headers['retry-after']) >= 1);
  });
});
