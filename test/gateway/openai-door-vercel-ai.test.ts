import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { before, describe, it } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText } from 'ai';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';

/** The Vercel AI SDK's OpenAI-compatible provider, configured by base URL and key only. */
describe('OpenAI door: the Vercel AI SDK', () => {
  const gw = shareGateway();
  let provider: ReturnType<typeof createOpenAICompatible>;
  before(async () => {
    await gw.gateway.listen({ port: 0, host: '127.0.0.1' });
    provider = createOpenAICompatible({
      name: 'gateway',
      baseURL: `http://127.0.0.1:${(gw.gateway.server.address() as AddressInfo).port}/v1`,
      apiKey: `${APP}:${SECRET}`,
      includeUsage: true,
    });
  });

  it('generateText: text, finish reason and usage', async () => {
    const result = await generateText({
      model: provider('gpt-4o-mini'),
      system: 'Be brief.',
      prompt: 'What is the capital of France?',
      maxRetries: 0,
    });
    assert.ok(result.text.length > 0);
    assert.equal(result.finishReason, 'stop');
    assert.ok((result.usage.inputTokens ?? 0) > 0);
    assert.ok((result.usage.outputTokens ?? 0) > 0);
  });

  it('streamText: the deltas add up to the text, with usage from the usage chunk', async () => {
    const result = streamText({ model: provider('gpt-4o-mini'), prompt: 'Say something.', maxRetries: 0 });
    let streamed = '';
    for await (const delta of result.textStream) streamed += delta;
    assert.ok(streamed.length > 0);
    assert.equal(await result.text, streamed);
    assert.equal(await result.finishReason, 'stop');
    const usage = await result.usage;
    assert.ok((usage.inputTokens ?? 0) > 0 && (usage.outputTokens ?? 0) > 0);
  });
});
