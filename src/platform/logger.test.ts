import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { batchLines, isoTimeOncePerMillisecond } from './logger.ts';

/** Records what reaches it, and which of its own flushes were called. */
function recordingDestination() {
  const calls: string[] = [];
  return {
    calls,
    write(chunk: string) {
      calls.push(`write:${chunk}`);
      return true;
    },
    flush(callback?: (error?: Error) => void) {
      calls.push('flush');
      callback?.();
    },
    flushSync() {
      calls.push('flushSync');
    },
  };
}

describe('batchLines', () => {
  it('hands lines on joined, once they reach the batch size', () => {
    const destination = batchLines(recordingDestination(), { batchChars: 10, flushEveryMs: 60_000 });
    destination.write('abcd\n');
    assert.deepEqual(destination.calls, []);
    destination.write('efgh\n');
    assert.deepEqual(destination.calls, ['write:abcd\nefgh\n']);
    destination.write('ijk\n');
    assert.deepEqual(destination.calls, ['write:abcd\nefgh\n']);
  });

  it('hands on what is waiting before its own flush and flushSync, and writes nothing when nothing waits', () => {
    const destination = batchLines(recordingDestination(), { batchChars: 4096, flushEveryMs: 60_000 });
    destination.write('one\n');
    destination.flushSync();
    destination.write('two\n');
    let flushed = false;
    destination.flush(() => {
      flushed = true;
    });
    destination.flushSync();
    assert.deepEqual(destination.calls, ['write:one\n', 'flushSync', 'write:two\n', 'flush', 'flushSync']);
    assert.equal(flushed, true);
  });

  it('hands on waiting lines within the flush interval', async () => {
    const destination = batchLines(recordingDestination(), { batchChars: 4096, flushEveryMs: 10 });
    destination.write('late\n');
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.deepEqual(destination.calls, ['write:late\n']);
  });
});

describe('isoTimeOncePerMillisecond', () => {
  it("writes pino's isoTime, and a new one as soon as the millisecond changes", (context) => {
    context.mock.timers.enable({ apis: ['Date'], now: Date.UTC(2026, 10, 24, 13, 12, 58, 123) });
    const first = isoTimeOncePerMillisecond();
    assert.equal(first, ',"time":"2026-11-24T13:12:58.123Z"');
    assert.equal(first, pino.stdTimeFunctions.isoTime());
    context.mock.timers.tick(1);
    assert.equal(isoTimeOncePerMillisecond(), ',"time":"2026-11-24T13:12:58.124Z"');
    context.mock.timers.tick(60_000);
    assert.equal(isoTimeOncePerMillisecond(), pino.stdTimeFunctions.isoTime());
  });

  it('pads the milliseconds and turns the second, the minute and the day over', (context) => {
    context.mock.timers.enable({ apis: ['Date'], now: Date.UTC(2026, 11, 31, 23, 59, 58, 995) });
    // Every millisecond across two seconds' turns, the year's end among them.
    for (let ms = 0; ms < 2_020; ms++) {
      assert.equal(isoTimeOncePerMillisecond(), pino.stdTimeFunctions.isoTime());
      context.mock.timers.tick(1);
    }
    context.mock.timers.tick(7);
    assert.equal(isoTimeOncePerMillisecond(), ',"time":"2027-01-01T00:00:01.022Z"');
  });
});
