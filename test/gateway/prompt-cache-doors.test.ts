import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { anthropicClient, listenForClients } from '../helpers/anthropic-door-client.ts';
import { APP, type Harness, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { type MockAnthropicServer, startMockAnthropic } from '../helpers/mock-anthropic-server.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';
import { SCRIPTED_PROMPT_TOKENS, scriptedCacheUsage } from '../helpers/scripted-reply.ts';

/**
 * Prompt-cache counts through the compatible doors, read back with the vendors' official SDKs:
 * the Anthropic door answers Anthropic's fields (input_tokens without the cached part), the OpenAI
 * door OpenAI's (cached_tokens, part of prompt_tokens), from an upstream of either vendor, in a
 * Message or completion and in a stream alike.
 */

/** An Anthropic upstream: reads, and writes for 5 minutes and for an hour. */
const ANTHROPIC_CACHE = { read: 24_000, write5m: 1_200, write1h: 300 };
/** An OpenAI upstream reports reads only. */
const OPENAI_CACHE = { read: 1_024 };
const question = { role: 'user' as const, content: 'What does this repository do?' };

function openAIClient(gw: Harness): OpenAI {
  const { port } = gw.gateway.server.address() as AddressInfo;
  return new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: `${APP}:${SECRET}`, maxRetries: 0 });
}

async function streamedUsage(client: OpenAI, model: string) {
  const stream = await client.chat.completions.create({
    model,
    messages: [question],
    stream: true,
    stream_options: { include_usage: true },
  });
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
  return usage;
}

describe('prompt-cache counts from an Anthropic slot', () => {
  let mock: MockAnthropicServer;
  before(async () => {
    mock = await startMockAnthropic({ eventDelayMs: 0 });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'anthropic', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: 'k' },
  }));
  after(() => mock.close());
  let anthropic: Anthropic;
  let openai: OpenAI;
  before(async () => {
    anthropic = anthropicClient(await listenForClients(gw));
    openai = openAIClient(gw);
  });

  const expected = {
    input_tokens: SCRIPTED_PROMPT_TOKENS,
    cache_read_input_tokens: ANTHROPIC_CACHE.read,
    cache_creation_input_tokens: ANTHROPIC_CACHE.write5m + ANTHROPIC_CACHE.write1h,
    cache_creation: {
      ephemeral_5m_input_tokens: ANTHROPIC_CACHE.write5m,
      ephemeral_1h_input_tokens: ANTHROPIC_CACHE.write1h,
    },
  };

  it('the Anthropic door answers them as Anthropic did, in a Message and in a stream', async () => {
    mock.replyNext({ text: 'It routes requests.', usage: scriptedCacheUsage('anthropic', ANTHROPIC_CACHE) });
    const message = await anthropic.messages.create({
      model: 'provider-a/claude-sonnet-4-5',
      max_tokens: 64,
      messages: [question],
    });
    const { output_tokens: output, ...plain } = message.usage;
    assert.deepEqual(plain, expected);

    mock.replyNext({ text: 'It routes requests.', usage: scriptedCacheUsage('anthropic', ANTHROPIC_CACHE) });
    const final = await anthropic.messages
      .stream({ model: 'provider-a/claude-sonnet-4-5', max_tokens: 64, messages: [question] })
      .finalMessage();
    const { output_tokens: streamedOutput, ...streamed } = final.usage as typeof final.usage & {
      cost_usd?: number;
    };
    const { cost_usd: _cost, ...withoutCost } = streamed as typeof streamed & { cost_usd?: number };
    assert.deepEqual(withoutCost, expected);
    assert.equal(streamedOutput, output);
  });

  it('message_start carries the prompt’s counts, message_delta the totals', async () => {
    mock.replyNext({ text: 'It routes requests.', usage: scriptedCacheUsage('anthropic', ANTHROPIC_CACHE) });
    const stream = await anthropic.messages.create({
      model: 'provider-a/claude-sonnet-4-5',
      max_tokens: 64,
      messages: [question],
      stream: true,
    });
    const usages: Record<string, unknown>[] = [];
    for await (const event of stream) {
      if (event.type === 'message_start') usages.push({ ...event.message.usage });
      if (event.type === 'message_delta') usages.push({ ...event.usage });
    }
    const [start, delta] = usages;
    // An anthropic slot's stream is relayed (the same-vendor lane): message_start is the
    // upstream's own, whose output count is its first token's, and message_delta too, whose usage
    // (Anthropic's MessageDeltaUsage) has no cache_creation split; the gateway adds cost_usd.
    assert.deepEqual({ ...start, output_tokens: 0 }, { ...expected, output_tokens: 0 });
    const { cache_creation: _split, ...totals } = expected as typeof expected & { cache_creation?: unknown };
    assert.deepEqual(
      { ...delta, output_tokens: 0, cost_usd: 0 },
      { ...totals, output_tokens: 0, cost_usd: 0 },
    );
    assert.ok(Number(delta?.cost_usd) > 0);
  });

  it('the OpenAI door answers the reads as cached_tokens, part of prompt_tokens', async () => {
    const total =
      SCRIPTED_PROMPT_TOKENS + ANTHROPIC_CACHE.read + ANTHROPIC_CACHE.write5m + ANTHROPIC_CACHE.write1h;
    mock.replyNext({ text: 'It routes requests.', usage: scriptedCacheUsage('anthropic', ANTHROPIC_CACHE) });
    const completion = await openai.chat.completions.create({
      model: 'provider-a/claude-sonnet-4-5',
      messages: [question],
    });
    mock.replyNext({ text: 'It routes requests.', usage: scriptedCacheUsage('anthropic', ANTHROPIC_CACHE) });
    const streamed = await streamedUsage(openai, 'provider-a/claude-sonnet-4-5');
    for (const usage of [completion.usage, streamed]) {
      assert.equal(usage?.prompt_tokens, total);
      assert.equal(usage?.prompt_tokens_details?.cached_tokens, ANTHROPIC_CACHE.read);
    }
  });
});

describe('prompt-cache counts from an OpenAI slot', () => {
  let mock: MockOpenAIServer;
  before(async () => {
    mock = await startMockOpenAI({ apiKey: 'k' });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'openai', PROVIDER_A_BASE_URL: mock.baseUrl, PROVIDER_A_API_KEY: 'k' },
  }));
  after(() => mock.close());
  let anthropic: Anthropic;
  let openai: OpenAI;
  before(async () => {
    anthropic = anthropicClient(await listenForClients(gw));
    openai = openAIClient(gw);
  });

  it('the OpenAI door answers cached_tokens as OpenAI did, in a completion and in its usage chunk', async () => {
    mock.replyNext({ text: 'It routes requests.', usage: scriptedCacheUsage('openai', OPENAI_CACHE) });
    const completion = await openai.chat.completions.create({
      model: 'provider-a/gpt-4o-mini',
      messages: [question],
    });
    mock.replyNext({ text: 'It routes requests.', usage: scriptedCacheUsage('openai', OPENAI_CACHE) });
    const streamed = await streamedUsage(openai, 'provider-a/gpt-4o-mini');
    for (const usage of [completion.usage, streamed]) {
      assert.equal(usage?.prompt_tokens, SCRIPTED_PROMPT_TOKENS + OPENAI_CACHE.read);
      assert.equal(usage?.prompt_tokens_details?.cached_tokens, OPENAI_CACHE.read);
    }
  });

  it('the Anthropic door answers the reads apart from input_tokens, and no writes', async () => {
    const expected = {
      input_tokens: SCRIPTED_PROMPT_TOKENS,
      cache_read_input_tokens: OPENAI_CACHE.read,
      cache_creation_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    };
    mock.replyNext({ text: 'It routes requests.', usage: scriptedCacheUsage('openai', OPENAI_CACHE) });
    const message = await anthropic.messages.create({
      model: 'provider-a/gpt-4o-mini',
      max_tokens: 64,
      messages: [question],
    });
    mock.replyNext({ text: 'It routes requests.', usage: scriptedCacheUsage('openai', OPENAI_CACHE) });
    const final = await anthropic.messages
      .stream({ model: 'provider-a/gpt-4o-mini', max_tokens: 64, messages: [question] })
      .finalMessage();
    for (const usage of [message.usage, final.usage]) {
      const { input_tokens, cache_read_input_tokens, cache_creation_input_tokens, cache_creation } = usage;
      assert.deepEqual(
        { input_tokens, cache_read_input_tokens, cache_creation_input_tokens, cache_creation },
        expected,
      );
    }
  });
});
