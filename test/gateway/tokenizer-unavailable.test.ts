import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TokenizerThread } from '../../src/gateway/tokenizer/tokenizer-thread.ts';
import { shareGateway } from '../helpers/gateway-harness.ts';
import { DYING_WORKER_URL } from '../helpers/killable-tokenizer-worker.ts';
import { type MockOpenAIServer, openAIFixtureJson, startMockOpenAI } from '../helpers/mock-openai-server.ts';

const question = { role: 'user', content: 'through a real adapter' };

/**
 * Every tokenizer thread dies on its first call, so every call dies twice running and fails: what
 * each caller makes of that (docs/operations.md, "Token counting").
 */
describe('when the tokenizer cannot count', () => {
  let mock: MockOpenAIServer;
  before(async () => {
    const { usage: _usage, ...withoutUsage } = openAIFixtureJson('chat-completion.json') as Record<
      string,
      unknown
    >;
    mock = await startMockOpenAI({ completion: withoutUsage });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'openai', PROVIDER_A_BASE_URL: mock.baseUrl, PROVIDER_A_API_KEY: 'mock-key' },
    tokenizer: new TokenizerThread({ workerUrl: DYING_WORKER_URL }),
  }));
  after(() => mock.close());

  it("count_tokens answers 503 with Retry-After, in Anthropic's shape", async () => {
    const res = await gw.post('/v1/messages/count_tokens', { model: 'simulated-chat', messages: [question] });
    assert.equal(res.status, 503, res.text);
    assert.equal(res.headers['retry-after'], '5');
    assert.equal(res.body.error.type, 'overloaded_error');
  });

  it('a simulated slot fails the call as a retryable upstream 503', async () => {
    const res = await gw.chat({ messages: [question], provider: 'provider-b' });
    assert.equal(res.status, 502, res.text);
    assert.equal(res.body.error.details.status, 503);
    assert.ok(gw.callsTo('provider-b') > 1, 'retried');
  });

  it('an answer whose upstream reported no usage is still given, its usage guessed from its length', async () => {
    const res = await gw.chat({ messages: [question], provider: 'provider-a' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.usage.estimated, true);
    assert.equal(res.body.usage.tokensIn, Math.ceil(question.content.length / 4));
    assert.equal(res.body.usage.tokensOut, Math.ceil(res.body.message.content.length / 4));
  });
});
