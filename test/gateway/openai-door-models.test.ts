import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';

describe('OpenAI door: GET /v1/models and model addressing', () => {
  const gw = shareGateway({
    file: {
      providers: { 'provider-b': { models: ['sim-large'] } },
      routing: { tasks: { summarize: [{ provider: 'provider-c', model: 'sim-summarizer' }] } },
    },
  });
  let client: OpenAI;
  before(async () => {
    await gw.gateway.listen({ port: 0, host: '127.0.0.1' });
    client = new OpenAI({
      baseURL: `http://127.0.0.1:${(gw.gateway.server.address() as AddressInfo).port}/v1`,
      apiKey: `${APP}:${SECRET}`,
      maxRetries: 0,
    });
  });

  it("lists what the model field resolves, in OpenAI's shape, through the SDK's pager", async () => {
    const listed: OpenAI.Models.Model[] = [];
    for await (const model of client.models.list()) listed.push(model);
    const byId = new Map(listed.map((m) => [m.id, m]));
    for (const model of listed) {
      assert.equal(model.object, 'model');
      assert.equal(typeof model.created, 'number');
      assert.equal(typeof model.owned_by, 'string');
    }
    assert.equal(byId.get('sim-large')?.owned_by, 'provider-b');
    assert.equal(byId.get('provider-b/sim-large')?.owned_by, 'provider-b');
    assert.equal(byId.get('summarize')?.owned_by, 'gateway');
  });

  it('every listed chat name answers, served by the slot the list names', async () => {
    for (const id of ['sim-large', 'provider-b/sim-large', 'summarize']) {
      const completion = await client.chat.completions.create({
        model: id,
        messages: [{ role: 'user', content: 'hi' }],
      });
      assert.equal(completion.object, 'chat.completion', id);
    }
    const since = gw.calls.slice(-3).map((call) => call.slot);
    assert.deepEqual(since, ['provider-b', 'provider-b', 'provider-c']);
  });

  it('a model naming a slot with nothing after it is a 400 at param model', async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'provider-b/', messages: [{ role: 'user', content: 'hi' }] }),
      (error: unknown) => error instanceof OpenAI.BadRequestError && error.param === 'model',
    );
  });
});
