import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import { anthropicClient, listenForClients } from '../helpers/anthropic-door-client.ts';
import { shareGateway } from '../helpers/gateway-harness.ts';
import { MockGeminiServer } from '../helpers/mock-gemini-server.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';

/**
 * The Anthropic door in front of other vendors: a request in Anthropic's shape is served by an
 * OpenAI slot and by a Gemini slot (the strict vendor mocks, replaying recorded answers), and
 * comes back in Anthropic's shape with the usage exactly as that upstream reported it.
 */

const question = { role: 'user' as const, content: 'What is the capital of France?' };

describe('Anthropic door → OpenAI slot (strict mock)', () => {
  let mock: MockOpenAIServer;
  before(async () => {
    mock = await startMockOpenAI({ apiKey: 'mock-key' });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'openai', PROVIDER_A_BASE_URL: mock.baseUrl, PROVIDER_A_API_KEY: 'mock-key' },
  }));
  after(() => mock.close());
  let client: Anthropic;
  before(async () => {
    client = anthropicClient(await listenForClients(gw));
  });

  it('answers in Anthropic shape with the recorded text and usage, and sends OpenAI its own shape', async () => {
    const answer = await client.messages.create({
      model: 'provider-a/gpt-4o-mini',
      max_tokens: 64,
      system: 'Answer in one sentence.',
      messages: [question],
      stop_sequences: ['\n\n'],
    });
    assert.deepEqual(answer.content, [
      { type: 'text', text: 'The capital of France is Paris.', citations: null },
    ]);
    assert.equal(answer.model, 'gpt-4o-mini-2024-07-18');
    assert.equal(answer.stop_reason, 'end_turn');
    // As recorded: prompt_tokens 1250 (1024 of them cached), completion_tokens 8.
    assert.equal(answer.usage.input_tokens, 1250);
    assert.equal(answer.usage.output_tokens, 8);
    const sent = mock.requests.at(-1)?.body as Record<string, unknown>;
    assert.equal(sent.model, 'gpt-4o-mini');
    assert.deepEqual(sent.messages, [
      { role: 'system', content: 'Answer in one sentence.' },
      { role: 'user', content: question.content },
    ]);
  });

  it('streams in Anthropic events with the usage the stream reported', async () => {
    const final = await client.messages
      .stream({ model: 'provider-a/gpt-4o-mini', max_tokens: 64, messages: [question] })
      .finalMessage();
    const text = final.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    assert.equal(text, 'The capital of France is Paris.');
    assert.equal(final.usage.input_tokens, 1250);
    assert.equal(final.usage.output_tokens, 8);
  });
});

describe('Anthropic door → Gemini slot (strict mock)', () => {
  let mock: MockGeminiServer;
  before(async () => {
    mock = await MockGeminiServer.start({ apiKey: 'gemini-key', streamEventDelayMs: 0 });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'gemini', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: 'gemini-key' },
  }));
  after(() => mock.close());
  let client: Anthropic;
  before(async () => {
    client = anthropicClient(await listenForClients(gw));
  });

  it('answers in Anthropic shape with the usage Gemini reported (thinking tokens in output_tokens)', async () => {
    const answer = await client.messages.create({
      model: 'provider-a/gemini-2.5-flash',
      max_tokens: 256,
      messages: [question],
    });
    assert.equal(answer.content[0]?.type, 'text');
    assert.match(answer.content[0]?.type === 'text' ? answer.content[0].text : '', /Paris/);
    assert.equal(answer.model, 'gemini-2.5-flash');
    // As recorded: promptTokenCount 2143; candidatesTokenCount 21 + thoughtsTokenCount 427.
    assert.equal(answer.usage.input_tokens, 2143);
    assert.equal(answer.usage.output_tokens, 21 + 427);
    assert.match(mock.requests.at(-1)?.path ?? '', /models\/gemini-2\.5-flash:generateContent$/);
  });

  it('streams in Anthropic events with the usage of the last chunk', async () => {
    const final = await client.messages
      .stream({ model: 'provider-a/gemini-2.5-flash', max_tokens: 256, messages: [question] })
      .finalMessage();
    assert.match(final.content.map((block) => (block.type === 'text' ? block.text : '')).join(''), /Louvre/);
    // As recorded in the stream's last chunk: promptTokenCount 9; candidates 17 + thoughts 437.
    assert.equal(final.usage.input_tokens, 9);
    assert.equal(final.usage.output_tokens, 17 + 437);
  });
});
