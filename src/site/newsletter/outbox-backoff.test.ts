import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeOutboxRetryDelay } from './outbox-backoff.ts';

const settings = { baseMs: 1_000, maxMs: 60_000 };

describe('computeOutboxRetryDelay', () => {
  it('doubles per failure, between half and all of the ceiling', () => {
    const table: [failures: number, low: number, high: number][] = [
      [1, 500, 1_000],
      [2, 1_000, 2_000],
      [3, 2_000, 4_000],
      [6, 16_000, 32_000],
      [7, 30_000, 60_000],
      [50, 30_000, 60_000],
      [1_000_000, 30_000, 60_000],
    ];
    for (const [failures, low, high] of table) {
      assert.equal(
        computeOutboxRetryDelay(failures, settings, () => 0),
        low,
        `failures ${failures}, least`,
      );
      assert.equal(
        computeOutboxRetryDelay(failures, settings, () => 0.999_999),
        high,
        `failures ${failures}, most`,
      );
    }
  });

  it('treats a nonsensical failure count as the first', () => {
    assert.equal(
      computeOutboxRetryDelay(0, settings, () => 0),
      500,
    );
    assert.equal(
      computeOutboxRetryDelay(-3, settings, () => 0),
      500,
    );
  });

  it('spreads retries with jitter', () => {
    const delays = new Set(
      Array.from({ length: 50 }, () => computeOutboxRetryDelay(4, settings, Math.random)),
    );
    assert.ok(delays.size > 10);
    for (const delay of delays) assert.ok(delay >= 4_000 && delay <= 8_000);
  });
});
