import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { listenForClients } from '../helpers/anthropic-door-client.ts';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';
import { checkResponseResource } from '../helpers/open-responses-schema.ts';
import { parseSse } from '../helpers/parse-sse.ts';

/**
 * `store`, `previous_response_id` and the stored-response routes of the Responses door
 * (CONTRACT 5.4), with the official SDK, on the embedded database: kept for the app that stored
 * them only, continued from with the whole conversation sent upstream, listed, deleted.
 */

const MODEL = 'provider-a/gpt-4o-mini';
const OTHER = 'other-app';
const OTHER_SECRET = 'other-secret-0123456789';

describe('stored responses on the Responses door', () => {
  let mock: MockOpenAIServer;
  before(async () => {
    mock = await startMockOpenAI({ apiKey: 'sk-upstream' });
  });
  const gw = shareGateway(() => ({
    env: {
      GATEWAY_APPS: `${APP}:${SECRET},${OTHER}:${OTHER_SECRET}`,
      PROVIDER_A_KIND: 'openai',
      PROVIDER_A_BASE_URL: mock.baseUrl,
      PROVIDER_A_API_KEY: 'sk-upstream',
    },
  }));
  after(() => mock.close());
  let client: OpenAI;
  let stranger: OpenAI;
  before(async () => {
    const baseURL = `${await listenForClients(gw)}/v1`;
    client = new OpenAI({ baseURL, apiKey: `${APP}:${SECRET}`, maxRetries: 0 });
    stranger = new OpenAI({ baseURL, apiKey: `${OTHER}:${OTHER_SECRET}`, maxRetries: 0 });
  });

  it('keeps a response with store: true, continues from it, lists its input items and deletes it', async () => {
    mock.replyNext({ text: 'Hello Alice.' });
    const first = await client.responses.create({
      model: MODEL,
      instructions: 'Be kind.',
      input: 'My name is Alice.',
      store: true,
    });
    const fetched = await client.responses.retrieve(first.id);
    assert.deepEqual(fetched, first);
    assert.deepEqual(checkResponseResource(fetched), []);

    mock.replyNext({ text: 'Your name is Alice.' });
    const second = await client.responses.create({
      model: MODEL,
      previous_response_id: first.id,
      input: 'What is my name?',
      store: true,
    });
    assert.equal(second.output_text, 'Your name is Alice.');
    assert.equal(second.previous_response_id, first.id);
    const sent = mock.requests.at(-1)?.body as { messages: unknown[] };
    assert.deepEqual(sent.messages, [
      { role: 'user', content: 'My name is Alice.' },
      { role: 'assistant', content: 'Hello Alice.' },
      { role: 'user', content: 'What is my name?' },
    ]);

    const items = await client.responses.inputItems.list(second.id, { order: 'asc' });
    assert.deepEqual(
      items.data.map((item) => (item.type === 'message' ? item.role : item.type)),
      ['user', 'assistant', 'user'],
    );
    const newestFirst = await client.responses.inputItems.list(second.id, { limit: 1 });
    assert.equal(newestFirst.data.length, 1);
    assert.equal(newestFirst.has_more, true);

    await client.responses.delete(first.id);
    await assert.rejects(client.responses.retrieve(first.id), (error: unknown) => {
      assert.ok(error instanceof OpenAI.NotFoundError);
      return true;
    });
  });

  it("another app's stored response is a 404 to it, and its previous_response_id a 400", async () => {
    mock.replyNext({ text: 'mine' });
    const mine = await client.responses.create({ model: MODEL, input: 'hi', store: true });
    await assert.rejects(stranger.responses.retrieve(mine.id), OpenAI.NotFoundError);
    await assert.rejects(stranger.responses.delete(mine.id), OpenAI.NotFoundError);
    await assert.rejects(stranger.responses.inputItems.list(mine.id), OpenAI.NotFoundError);
    await assert.rejects(
      stranger.responses.create({ model: MODEL, input: 'more', previous_response_id: mine.id }),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.BadRequestError);
        assert.equal(error.param, 'previous_response_id');
        return true;
      },
    );
    assert.equal((await client.responses.retrieve(mine.id)).id, mine.id);
  });

  it('a response made without store is not kept: continuing from it is a 400', async () => {
    mock.replyNext({ text: 'not kept' });
    const unstored = await client.responses.create({ model: MODEL, input: 'hi' });
    await assert.rejects(client.responses.retrieve(unstored.id), OpenAI.NotFoundError);
    const calls = mock.requests.length;
    await assert.rejects(
      client.responses.create({ model: MODEL, input: 'more', previous_response_id: unstored.id }),
      OpenAI.BadRequestError,
    );
    assert.equal(mock.requests.length, calls, 'no upstream call');
  });

  it('a streamed response with store: true is kept before its last event', async () => {
    mock.replyNext({ text: 'streamed and kept' });
    const reply = await gw.post(
      '/v1/responses',
      { model: MODEL, input: 'hi', stream: true, store: true },
      { auth: false, headers: { authorization: `Bearer ${APP}:${SECRET}` } },
    );
    const last = parseSse(reply.text).at(-1)?.data as { response: { id: string; store: boolean } };
    assert.equal(last.response.store, true);
    const kept = await client.responses.retrieve(last.response.id);
    assert.equal(kept.output_text, 'streamed and kept');
  });
});

describe('stored responses are bounded', () => {
  const gw = shareGateway({ file: { usage: { storedResponseMaxBytes: 1024 } } });

  it('a conversation larger than the bound is refused with store: true, served without', async () => {
    const input = 'x'.repeat(2000);
    const bearer = { auth: false, headers: { authorization: `Bearer ${APP}:${SECRET}` } };
    const refused = await gw.post('/v1/responses', { model: 'chat', input, store: true }, bearer);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.param, 'store');
    const served = await gw.post('/v1/responses', { model: 'chat', input }, bearer);
    assert.equal(served.status, 200);
  });
});
