import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions/completions';
import type { ChatCall } from '../provider.ts';
import { maxTokensFieldFor, toOpenAIChatRequest, toOpenAIName } from './to-openai-request.ts';

const plain = { stream: false, maxTokensField: 'max_tokens' } as const;

describe('toOpenAIChatRequest', () => {
  const cases: {
    name: string;
    call: ChatCall;
    options?: Parameters<typeof toOpenAIChatRequest>[1];
    expected: unknown;
  }[] = [
    {
      name: 'messages, names and temperature; nothing the caller did not set',
      call: {
        model: 'gpt-4o-mini',
        temperature: 0.2,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Capital of France?', name: 'alice' },
          { role: 'assistant', content: 'Paris.' },
        ],
      },
      expected: {
        model: 'gpt-4o-mini',
        temperature: 0.2,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Capital of France?', name: 'alice' },
          { role: 'assistant', content: 'Paris.' },
        ],
      },
    },
    {
      name: 'a tool result becomes a labelled user message (no tool_call_id exists)',
      call: {
        model: 'm',
        messages: [
          { role: 'tool', content: '{"temp": 21}', name: 'weather' },
          { role: 'tool', content: 'ok' },
        ],
      },
      expected: {
        model: 'm',
        messages: [
          { role: 'user', content: 'Tool result (weather): {"temp": 21}' },
          { role: 'user', content: 'Tool result: ok' },
        ],
      },
    },
    {
      name: 'maxTokens as max_tokens for compatible servers',
      call: { model: 'llama3.2', maxTokens: 64, messages: [{ role: 'user', content: 'hi' }] },
      expected: { model: 'llama3.2', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
    },
    {
      name: 'maxTokens as max_completion_tokens for OpenAI',
      call: { model: 'o4-mini', maxTokens: 64, messages: [{ role: 'user', content: 'hi' }] },
      options: { stream: false, maxTokensField: 'max_completion_tokens' },
      expected: { model: 'o4-mini', max_completion_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
    },
    {
      name: 'a JSON schema as a non-strict json_schema response_format with a valid name',
      call: {
        model: 'm',
        messages: [{ role: 'user', content: 'city?' }],
        jsonSchema: {
          name: 'City answer!',
          schema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      },
      expected: {
        model: 'm',
        messages: [{ role: 'user', content: 'city?' }],
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'City_answer_',
            schema: { type: 'object', properties: { city: { type: 'string' } } },
            strict: false,
          },
        },
      },
    },
    {
      name: 'a stream asks for the usage chunk',
      call: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
      options: { stream: true, maxTokensField: 'max_tokens' },
      expected: {
        model: 'm',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
      },
    },
  ];
  for (const { name, call, options, expected } of cases) {
    it(name, () => assert.deepEqual(toOpenAIChatRequest(call, options ?? plain), expected));
  }

  it('produces bodies the official SDK types accept', () => {
    const call: ChatCall = {
      model: 'm',
      maxTokens: 5,
      temperature: 1,
      messages: [{ role: 'user', content: 'hi', name: 'a' }],
      jsonSchema: { name: 'x', schema: {} },
    };
    // Compile-time check: tsc fails here if a field name or shape drifts from the SDK's.
    const plainBody: ChatCompletionCreateParamsBase = toOpenAIChatRequest(call, {
      stream: false,
      maxTokensField: 'max_completion_tokens',
    });
    const streamBody: ChatCompletionCreateParamsBase = toOpenAIChatRequest(call, {
      stream: true,
      maxTokensField: 'max_tokens',
    });
    assert.equal(plainBody.max_completion_tokens, 5);
    assert.equal(streamBody.stream_options?.include_usage, true);
  });
});

describe('toOpenAIName', () => {
  const cases: [string, string | undefined][] = [
    ['alice', 'alice'],
    ['Alice Smith', 'Alice_Smith'],
    ['agent-7_b', 'agent-7_b'],
    ['   ', undefined],
    ['é', undefined],
    ['x'.repeat(100), 'x'.repeat(64)],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input.slice(0, 12))} -> ${JSON.stringify(expected)}`, () =>
      assert.equal(toOpenAIName(input), expected));
  }

  it('drops a message name that has nothing valid left', () => {
    const body = toOpenAIChatRequest(
      { model: 'm', messages: [{ role: 'user', content: 'hi', name: '!!' }] },
      plain,
    );
    assert.deepEqual(body.messages, [{ role: 'user', content: 'hi' }]);
  });
});

describe('maxTokensFieldFor', () => {
  const cases: [string, string][] = [
    ['https://api.openai.com/v1', 'max_completion_tokens'],
    ['https://API.OpenAI.com/v1/', 'max_completion_tokens'],
    ['https://my-resource.openai.azure.com/openai/v1', 'max_completion_tokens'],
    ['http://localhost:11434/v1', 'max_tokens'],
    ['http://vllm.internal:8000/v1', 'max_tokens'],
    ['https://openrouter.ai/api/v1', 'max_tokens'],
    ['https://api.groq.com/openai/v1', 'max_tokens'],
    ['https://notopenai.com/v1', 'max_tokens'],
    ['not a url', 'max_tokens'],
  ];
  for (const [url, expected] of cases) {
    it(`${url} -> ${expected}`, () => assert.equal(maxTokensFieldFor(url), expected));
  }
});
