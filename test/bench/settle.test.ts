import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CaseResult } from '../../bench/measure.ts';
import { describeSettled, settle, summarizeSettling } from '../../bench/settle.ts';

/** A slice whose V8 helper threads took `v8` of `total` µs a request. */
const sliceOf = (total: number, v8: number) =>
  ({
    cpuUsPerRequest: total,
    cpuUsByThread: { main: total - v8, v8, workers: 0, libuv: 0, other: 0 },
  }) as CaseResult;

describe('settle', () => {
  it('loads until a slice in which V8 helper threads took at most 5% of the CPU', async () => {
    const shares = [100, 60, 40, 25, 9, 8];
    let slices = 0;
    const result = await settle(async () => sliceOf(400, shares[slices++] as number), 20);
    assert.deepEqual(result, { seconds: 5, helperShare: 9 / 400, settled: true });
    assert.equal(slices, 5);
    assert.match(describeSettled('gateway on chat', result), /^gateway on chat settled after 5 s \(2\.3% /);
  });

  it('stops at its time when the helpers never go quiet, and says so', async () => {
    let slices = 0;
    const result = await settle(async () => {
      slices++;
      return sliceOf(400, 40);
    }, 3);
    assert.equal(slices, 3);
    assert.equal(result.settled, false);
    assert.match(describeSettled('forwarder on stream', result), /not settled after 3 s \(still 10\.0% /);
  });

  it('sums the settling up in one line: the longest, and whoever ran out of time', () => {
    const done = (seconds: number) => ({ seconds, helperShare: 0.02, settled: true });
    assert.equal(
      summarizeSettling([
        { name: 'forwarder on chat', settled: done(5) },
        { name: 'gateway on chat', settled: done(9) },
      ]),
      '2 of 2 settled, the longest after 9 s (gateway on chat)',
    );
    assert.equal(
      summarizeSettling([
        { name: 'gateway on chat', settled: done(9) },
        { name: 'gateway on stream', settled: { seconds: 20, helperShare: 0.08, settled: false } },
      ]),
      '1 of 2 settled, the longest after 20 s (gateway on stream); not settled in time: gateway on stream',
    );
  });
});
