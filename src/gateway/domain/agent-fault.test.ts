import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatRetryDelay, readOverflowMessage, retryAfterSeconds } from './agent-fault.ts';

describe('readOverflowMessage', () => {
  const cases: [string, number | undefined, number | undefined][] = [
    ['prompt is too long: 208310 tokens > 200000 maximum', 208310, 200000],
    [
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130012 tokens. Please reduce the length of the messages.",
      130012,
      128000,
    ],
    [
      "This model's maximum context length is 8192 tokens. However, you requested 8250 tokens (8000 in the messages, 250 in the completion).",
      8000,
      8192,
    ],
    [
      'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      1200000,
      1048576,
    ],
    ['The input token count exceeds the maximum number of tokens allowed.', undefined, undefined],
    [
      'Your input exceeds the context window of this model. Please adjust your input and try again.',
      undefined,
      undefined,
    ],
  ];
  for (const [message, prompt, window] of cases) {
    it(`reads ${message.slice(0, 50)}…`, () => {
      const fault = readOverflowMessage(message);
      assert.equal(fault?.kind, 'context_overflow');
      assert.equal(fault?.promptTokens, prompt);
      assert.equal(fault?.maxTokens, window);
      assert.equal(fault?.message, message);
    });
  }

  it('is undefined for any other rejection', () => {
    assert.equal(readOverflowMessage("The model 'gpt-nope' does not exist"), undefined);
    assert.equal(readOverflowMessage('max_tokens: 100000 > 64000, which is the maximum allowed'), undefined);
    assert.equal(readOverflowMessage(undefined), undefined);
  });
});

describe('formatRetryDelay', () => {
  for (const [ms, text] of [
    [850, '850ms'],
    [0, '1ms'],
    [999.2, '1s'],
    [1000, '1s'],
    [1500, '1.5s'],
    [1898, '1.898s'],
    [20_000, '20s'],
  ] as const) {
    it(`writes ${ms} ms as ${text}`, () => assert.equal(formatRetryDelay(ms), text));
  }

  it('rounds Retry-After up to whole seconds, never 0', () => {
    assert.deepEqual([850, 1000, 1500, 0].map(retryAfterSeconds), [1, 1, 2, 1]);
  });
});
