import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTH, shareGateway } from '../helpers/gateway-harness.ts';
import { onlyLedgerRow } from '../helpers/ledger-row.ts';
import { type MockAnthropicServer, startMockAnthropic } from '../helpers/mock-anthropic-server.ts';
import { MockGeminiServer } from '../helpers/mock-gemini-server.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';

/**
 * `modelMap` on any slot (CONTRACT 6.4), not only the clouds': an openai, an anthropic and a gemini
 * slot each send the map's id upstream for the name the client used, on the translated lanes and
 * on the same-vendor lanes (the Anthropic door's Messages, the Gemini door's generateContent), and
 * the ledger keeps both names.
 */
describe('modelMap on the openai, anthropic and gemini kinds', () => {
  let openai: MockOpenAIServer;
  let anthropic: MockAnthropicServer;
  let gemini: MockGeminiServer;
  before(async () => {
    openai = await startMockOpenAI({ apiKey: 'openai-key' });
    anthropic = await startMockAnthropic();
    gemini = await MockGeminiServer.start({ apiKey: 'gemini-key', streamEventDelayMs: 0 });
  });
  const gw = shareGateway(() => ({
    file: {
      providers: {
        'provider-a': {
          kind: 'openai',
          baseUrl: openai.baseUrl,
          apiKey: 'openai-key',
          modelMap: { 'team-chat': 'gpt-4o-mini-2024-07-18', 'team-embed': 'text-embedding-3-small' },
        },
        'provider-b': {
          kind: 'anthropic',
          baseUrl: anthropic.origin,
          apiKey: 'anthropic-key',
          modelMap: { 'team-claude': 'claude-sonnet-4-5-20250929' },
        },
        'provider-c': {
          kind: 'gemini',
          baseUrl: gemini.origin,
          apiKey: 'gemini-key',
          modelMap: { 'team-gemini': 'gemini-2.5-flash' },
        },
      },
    },
  }));
  after(async () => {
    await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
  });

  async function assertRow(
    reply: { status: number; text: string; headers: Record<string, unknown> },
    client: string,
  ) {
    assert.equal(reply.status, 200, reply.text);
    const row = await onlyLedgerRow(gw, String(reply.headers['x-request-id'] ?? reply.headers['request-id']));
    assert.equal(row.clientModel, client);
    assert.notEqual(row.model, client);
  }

  it('openai: chat and embeddings go upstream with the mapped id', async () => {
    const chat = await gw.post('/v1/chat/completions', {
      model: 'provider-a/team-chat',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(
      (openai.requests.at(-1)?.body as { model?: string } | undefined)?.model,
      'gpt-4o-mini-2024-07-18',
    );
    await assertRow(chat, 'team-chat');
    const embed = await gw.post('/v1/embeddings', { model: 'provider-a/team-embed', input: 'hi' });
    assert.equal(embed.status, 200, embed.text);
    assert.equal(
      (openai.requests.at(-1)?.body as { model?: string } | undefined)?.model,
      'text-embedding-3-small',
    );
  });

  it('anthropic: the Messages relay and the translated lane both send the mapped id', async () => {
    const relayed = await gw.post(
      '/v1/messages',
      { model: 'provider-b/team-claude', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
      { headers: { ...AUTH, 'anthropic-version': '2023-06-01' } },
    );
    assert.equal(anthropic.requests.at(-1)?.body.model, 'claude-sonnet-4-5-20250929');
    await assertRow(relayed, 'team-claude');
    const translated = await gw.post('/v1/chat/completions', {
      model: 'provider-b/team-claude',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(translated.status, 200, translated.text);
    assert.equal(anthropic.requests.at(-1)?.body.model, 'claude-sonnet-4-5-20250929');
  });

  it('gemini: the generateContent relay and the translated lane both call the mapped model', async () => {
    const relayed = await gw.post(
      '/v1beta/models/provider-c/team-gemini:generateContent',
      { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
      { headers: { 'x-goog-api-key': `${AUTH['x-gateway-app']}:${AUTH['x-gateway-secret']}` } },
    );
    assert.equal(relayed.status, 200, relayed.text);
    assert.match(gemini.requests.at(-1)?.path ?? '', /\/models\/gemini-2\.5-flash:generateContent$/);
    const translated = await gw.post('/v1/chat/completions', {
      model: 'provider-c/team-gemini',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.match(gemini.requests.at(-1)?.path ?? '', /\/models\/gemini-2\.5-flash:generateContent$/);
    await assertRow(translated, 'team-gemini');
  });
});
