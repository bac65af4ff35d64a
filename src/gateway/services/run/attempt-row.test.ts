import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attemptRow, usageOfAttempts } from './attempt-row.ts';

const common = {
  provider: 'p',
  model: 'm',
  latencyMs: 5,
  outcome: 'ok',
  upstreamStatus: 200,
  deployment: null,
};

describe('reasoning tokens on attempts', () => {
  it('carries the reported reasoning tokens into the answer usage, within the output', () => {
    const rows = [
      attemptRow(0, { ...common, usage: { inputTokens: 10, outputTokens: 50, reasoningTokens: 30 } }),
      // An upstream that says more reasoning than output: never more than the output.
      attemptRow(1, { ...common, usage: { inputTokens: 10, outputTokens: 4, reasoningTokens: 9 } }),
    ];
    assert.equal(rows[0]?.reasoningTokens, 30);
    assert.equal(rows[1]?.reasoningTokens, 4);
    const usage = usageOfAttempts(rows);
    assert.equal(usage.tokensOut, 54);
    assert.equal(usage.tokensOutReasoning, 34);
  });

  it('leaves the field out when none were reported, or the counts were estimated', () => {
    const rows = [
      attemptRow(0, { ...common, usage: { inputTokens: 10, outputTokens: 5, reasoningTokens: 0 } }),
      attemptRow(1, {
        ...common,
        usage: { inputTokens: 10, outputTokens: 5, reasoningTokens: 3 },
        usageEstimated: true,
      }),
    ];
    assert.equal('reasoningTokens' in (rows[0] ?? {}), false);
    assert.equal('reasoningTokens' in (rows[1] ?? {}), false);
    assert.equal('tokensOutReasoning' in usageOfAttempts(rows), false);
  });
});
