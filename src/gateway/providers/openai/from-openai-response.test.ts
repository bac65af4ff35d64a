import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openAIFixtureJson } from '../../../../test/helpers/mock-openai-server.ts';
import type { ChatResult } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { fromOpenAIChatResponse } from './from-openai-response.ts';

const completion = openAIFixtureJson('chat-completion.json') as Record<string, unknown>;

describe('fromOpenAIChatResponse', () => {
  const cases: { name: string; body: unknown; expected: ChatResult }[] = [
    {
      name: 'a recorded completion: content, answering model, cached tokens inside input tokens',
      body: completion,
      expected: {
        model: 'gpt-4o-mini-2024-07-18',
        content: 'The capital of France is Paris.',
        finishReason: 'stop',
        usage: { inputTokens: 1250, outputTokens: 8, cacheReadTokens: 1024, reasoningTokens: 0 },
      },
    },
    {
      name: 'a reasoning model cut at the limit: reasoning tokens inside output tokens',
      body: openAIFixtureJson('chat-completion-reasoning.json'),
      expected: {
        model: 'o4-mini-2025-04-16',
        content: '{"city":"Paris","country":"France"}',
        finishReason: 'length',
        usage: { inputTokens: 86, outputTokens: 214, cacheReadTokens: 0, reasoningTokens: 192 },
      },
    },
    {
      name: 'a structured-output refusal is the answer, flagged content_filter',
      body: openAIFixtureJson('chat-completion-refusal.json'),
      expected: {
        model: 'gpt-4o-2024-08-06',
        content: "I'm sorry, I can't help with that request.",
        finishReason: 'content_filter',
        usage: { inputTokens: 41, outputTokens: 11, cacheReadTokens: 0, reasoningTokens: 0 },
      },
    },
    {
      name: 'a compatible server without usage, details or model (Ollama-like)',
      body: {
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
      },
      expected: { model: 'requested-model', content: 'hi', finishReason: 'stop', usage: undefined },
    },
    {
      name: 'usage without a readable completion count is no usage (estimated later)',
      body: { ...completion, usage: { prompt_tokens: 10, completion_tokens: '3' } },
      expected: {
        model: 'gpt-4o-mini-2024-07-18',
        content: 'The capital of France is Paris.',
        finishReason: 'stop',
        usage: undefined,
      },
    },
    {
      name: 'cache writes are reported when the upstream gives them',
      body: {
        ...completion,
        usage: {
          prompt_tokens: 2000,
          completion_tokens: 5,
          prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 1900 },
        },
      },
      expected: {
        model: 'gpt-4o-mini-2024-07-18',
        content: 'The capital of France is Paris.',
        finishReason: 'stop',
        usage: { inputTokens: 2000, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 1900 },
      },
    },
    {
      name: 'tool_calls with null content, and the deprecated function_call reason',
      body: {
        model: 'm',
        choices: [
          { message: { role: 'assistant', content: null, tool_calls: [] }, finish_reason: 'function_call' },
        ],
      },
      expected: { model: 'm', content: '', finishReason: 'tool_calls', usage: undefined },
    },
    {
      name: 'an unknown finish reason is other',
      body: { model: 'm', choices: [{ message: { content: 'x' }, finish_reason: 'abort' }] },
      expected: { model: 'm', content: 'x', finishReason: 'other', usage: undefined },
    },
  ];
  for (const { name, body, expected } of cases) {
    it(name, () => assert.deepEqual(fromOpenAIChatResponse('provider-a', body, 'requested-model'), expected));
  }

  const invalid: [string, unknown][] = [
    ['not an object', 'The capital of France is Paris.'],
    ['an array', [completion]],
    ['no choices', { ...completion, choices: [] }],
    ['choices not a list', { ...completion, choices: { 0: {} } }],
    ['a choice without a message', { ...completion, choices: [{ index: 0, finish_reason: 'stop' }] }],
    ['content that is not text', { ...completion, choices: [{ message: { content: [{ type: 'text' }] } }] }],
  ];
  for (const [name, body] of invalid) {
    it(`rejects ${name} as invalid_response`, () =>
      assert.throws(
        () => fromOpenAIChatResponse('provider-b', body, 'm'),
        (error: unknown) =>
          error instanceof ProviderError &&
          error.failure === 'invalid_response' &&
          error.slot === 'provider-b' &&
          !error.retryable,
      ));
  }
});
