import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { anthropicClient, listenForClients } from '../helpers/anthropic-door-client.ts';
import { shareGateway } from '../helpers/gateway-harness.ts';
import { type MockAnthropicServer, startMockAnthropic } from '../helpers/mock-anthropic-server.ts';

/**
 * GET /v1/models in Anthropic's list shape for a client that names `anthropic-version`, OpenAI's
 * otherwise (CONTRACT 5.2), and a `claude-*` name without a slot going to the anthropic slot
 * rather than the default route's (CONTRACT 5.9): Claude Code's default set-up.
 */
describe('Anthropic clients: GET /v1/models and claude-* names', () => {
  let mock: MockAnthropicServer;
  before(async () => {
    mock = await startMockAnthropic({ eventDelayMs: 0 });
  });
  // The default route's first slot is the simulator (provider-a); the anthropic slot is provider-b.
  const gw = shareGateway(() => ({
    env: { PROVIDER_B_KIND: 'anthropic', PROVIDER_B_BASE_URL: mock.origin, PROVIDER_B_API_KEY: 'sk-ant' },
    file: { providers: { 'provider-b': { models: ['claude-sonnet-4-5'] } } },
  }));
  after(() => mock.close());

  it("lists in Anthropic's shape through the SDK's pager", async () => {
    const client = anthropicClient(await listenForClients(gw));
    const page = await client.models.list();
    const listed = [];
    for await (const model of client.models.list()) listed.push(model);
    assert.ok(listed.length > 0);
    for (const model of listed) {
      assert.equal(model.type, 'model');
      assert.equal(model.display_name, model.id);
      assert.match(model.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }
    const ids = listed.map((model) => model.id);
    assert.ok(ids.includes('claude-sonnet-4-5'));
    assert.ok(ids.includes('provider-b/claude-sonnet-4-5'));
    assert.equal(page.has_more, false);
    assert.equal(page.first_id, ids[0]);
    assert.equal(page.last_id, ids.at(-1));
  });

  it("answers OpenAI's shape without anthropic-version", async () => {
    const reply = await gw.get('/v1/models');
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.object, 'list');
    assert.equal(reply.body.data[0].object, 'model');
  });

  it('sends a claude-* name no slot lists to the anthropic slot, as the client wrote it', async () => {
    const client = anthropicClient(await listenForClients(gw));
    const before = mock.requests.length;
    const message = await client.messages.create({
      model: 'claude-opus-4-8',
      max_tokens: 32,
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(message.type, 'message');
    assert.equal(mock.requests.length, before + 1);
    assert.equal(mock.requests.at(-1)?.body.model, 'claude-opus-4-8');
  });
});
