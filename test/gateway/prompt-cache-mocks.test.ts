import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { type MockAnthropicServer, startMockAnthropic } from '../helpers/mock-anthropic-server.ts';
import { MockGeminiServer } from '../helpers/mock-gemini-server.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';
import { SCRIPTED_PROMPT_TOKENS, scriptedCacheUsage } from '../helpers/scripted-reply.ts';

/**
 * The vendor mocks' prompt-cache usage, read by each vendor's official SDK straight from the mock
 * (no gateway between): what the gateway's cache tests rely on is the vendors' own shape.
 */

const cache = { read: 3_000, write5m: 400, write1h: 100 };

describe('the Anthropic mock reports cache usage as the Messages API does', () => {
  let mock: MockAnthropicServer;
  let client: Anthropic;
  before(async () => {
    mock = await startMockAnthropic({ eventDelayMs: 0 });
    client = new Anthropic({ apiKey: 'k', baseURL: mock.origin, maxRetries: 0 });
  });
  after(() => mock.close());

  const expected = {
    input_tokens: SCRIPTED_PROMPT_TOKENS,
    cache_read_input_tokens: cache.read,
    cache_creation_input_tokens: cache.write5m + cache.write1h,
    cache_creation: { ephemeral_5m_input_tokens: cache.write5m, ephemeral_1h_input_tokens: cache.write1h },
  };
  const request = {
    model: 'claude-sonnet-4-5',
    max_tokens: 32,
    messages: [{ role: 'user' as const, content: 'Hi' }],
  };

  it('in a Message, and in a stream (message_start, and message_delta cumulative)', async () => {
    mock.replyNext({ text: 'Hello.', usage: scriptedCacheUsage('anthropic', cache) });
    const { output_tokens: output, ...plain } = (await client.messages.create(request)).usage;
    assert.deepEqual(plain, expected);
    mock.replyNext({ text: 'Hello.', usage: scriptedCacheUsage('anthropic', cache) });
    const stream = client.messages.stream(request);
    let delta: Anthropic.MessageDeltaUsage | undefined;
    stream.on('streamEvent', (event) => {
      if (event.type === 'message_delta') delta = event.usage;
    });
    const { output_tokens: streamedOutput, ...streamed } = (await stream.finalMessage()).usage;
    assert.deepEqual(streamed, expected);
    assert.equal(streamedOutput, output);
    assert.equal(delta?.cache_read_input_tokens, cache.read);
    assert.equal(delta?.input_tokens, SCRIPTED_PROMPT_TOKENS);
  });
});

describe('the OpenAI mock reports cached_tokens as Chat Completions does', () => {
  let mock: MockOpenAIServer;
  let client: OpenAI;
  before(async () => {
    mock = await startMockOpenAI({ apiKey: 'k' });
    client = new OpenAI({ apiKey: 'k', baseURL: mock.baseUrl, maxRetries: 0 });
  });
  after(() => mock.close());

  it('as part of prompt_tokens, in a completion and in the usage chunk of a stream', async () => {
    const messages = [{ role: 'user' as const, content: 'Hi' }];
    mock.replyNext({ text: 'Hello.', usage: scriptedCacheUsage('openai', cache) });
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages });
    mock.replyNext({ text: 'Hello.', usage: scriptedCacheUsage('openai', cache) });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let streamed: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) if (chunk.usage) streamed = chunk.usage;
    for (const usage of [completion.usage, streamed]) {
      assert.equal(usage?.prompt_tokens, SCRIPTED_PROMPT_TOKENS + cache.read);
      assert.equal(usage?.prompt_tokens_details?.cached_tokens, cache.read);
    }
  });
});

describe('the Gemini mock reports cachedContentTokenCount as generateContent does', () => {
  let mock: MockGeminiServer;
  let ai: GoogleGenAI;
  before(async () => {
    mock = await MockGeminiServer.start({ apiKey: 'k', streamEventDelayMs: 0 });
    ai = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: mock.origin } });
  });
  after(() => mock.close());

  it('as part of promptTokenCount, in an answer and in the last chunk of a stream', async () => {
    const request = { model: 'gemini-2.5-flash', contents: 'Hi' };
    mock.replyNext({ text: 'Hello.', usage: scriptedCacheUsage('gemini', cache) });
    const answer = await ai.models.generateContent(request);
    mock.replyNext({ text: 'Hello.', usage: scriptedCacheUsage('gemini', cache) });
    let last: typeof answer.usageMetadata;
    for await (const chunk of await ai.models.generateContentStream(request)) {
      if (chunk.usageMetadata !== undefined) last = chunk.usageMetadata;
    }
    for (const usage of [answer.usageMetadata, last]) {
      assert.equal(usage?.promptTokenCount, SCRIPTED_PROMPT_TOKENS + cache.read);
      assert.equal(usage?.cachedContentTokenCount, cache.read);
    }
  });
});
