import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeUsageCounts, readUsageCounts, toPromptUsage, toReportedUsage } from './anthropic-usage.ts';

describe("Anthropic's usage as the gateway's counts", () => {
  const cases: [string, Record<string, unknown>, ReturnType<typeof toReportedUsage>][] = [
    [
      'reads, and writes split by lifetime: input is the sum of the parts, the 1-hour ones kept apart',
      {
        input_tokens: 50,
        cache_read_input_tokens: 24_000,
        cache_creation_input_tokens: 1500,
        cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 500 },
        output_tokens: 80,
      },
      {
        inputTokens: 50 + 24_000 + 1500,
        outputTokens: 80,
        cacheReadTokens: 24_000,
        cacheWriteTokens: 1500,
        cacheWrite1hTokens: 500,
      },
    ],
    [
      'writes without a split (an older server): all 5-minute writes',
      { input_tokens: 10, cache_creation_input_tokens: 300, output_tokens: 2 },
      { inputTokens: 310, outputTokens: 2, cacheWriteTokens: 300 },
    ],
    [
      'a split without the total: the writes are its sum',
      {
        input_tokens: 10,
        cache_creation: { ephemeral_5m_input_tokens: 7, ephemeral_1h_input_tokens: 3 },
        output_tokens: 2,
      },
      { inputTokens: 20, outputTokens: 2, cacheWriteTokens: 10, cacheWrite1hTokens: 3 },
    ],
    [
      'a 1-hour count larger than the writes is cut to them',
      {
        input_tokens: 1,
        cache_creation_input_tokens: 4,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 9 },
        output_tokens: 1,
      },
      { inputTokens: 5, outputTokens: 1, cacheWriteTokens: 4, cacheWrite1hTokens: 4 },
    ],
    [
      'counts that are not counts are left out, not trusted',
      {
        input_tokens: 5,
        cache_read_input_tokens: -3,
        cache_creation: { ephemeral_1h_input_tokens: '7' },
        output_tokens: 1,
      },
      { inputTokens: 5, outputTokens: 1 },
    ],
    ['no output count: no usage (the gateway estimates)', { input_tokens: 5 }, undefined],
  ];
  for (const [name, usage, expected] of cases) {
    it(name, () => assert.deepEqual(toReportedUsage(readUsageCounts(usage)), expected));
  }

  it("a stream's message_delta replaces message_start's counts where it has them, and keeps the split", () => {
    const start = readUsageCounts({
      input_tokens: 50,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 40,
      cache_creation: { ephemeral_5m_input_tokens: 10, ephemeral_1h_input_tokens: 30 },
      output_tokens: 1,
    });
    // The prompt's side is known from message_start, before any text.
    assert.deepEqual(toPromptUsage(start), {
      inputTokens: 190,
      outputTokens: 0,
      cacheReadTokens: 100,
      cacheWriteTokens: 40,
      cacheWrite1hTokens: 30,
    });
    const delta = readUsageCounts({
      input_tokens: 50,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 40,
      output_tokens: 61,
    });
    assert.deepEqual(toReportedUsage(mergeUsageCounts(start, delta)), {
      inputTokens: 190,
      outputTokens: 61,
      cacheReadTokens: 100,
      cacheWriteTokens: 40,
      cacheWrite1hTokens: 30,
    });
    assert.equal(toPromptUsage(readUsageCounts({ output_tokens: 1 })), undefined);
  });
});
