import type { Clock } from '../../src/platform/clock.ts';

/**
 * A clock for the tests of per-minute limits, which count in fixed windows aligned to the UTC
 * minute: a test that sends more requests than such a limit must send them all inside one window,
 * or the next window's fresh count lets more through. This clock reads the real time moved on to
 * one second past the start of a minute, so a test has the rest of that minute (59 s) in one
 * window from the moment the clock is set, without waiting for a minute to turn.
 *
 * It runs ahead of real time, never behind it, and only ever moves forward: a counter kept in Redis
 * expires at its window's end in Redis's real time, so it outlives the clock's window instead of
 * vanishing inside it. Give the same clock to every instance of a test that shares one counter.
 */
export class MinuteClock implements Clock {
  #ahead = 0;

  constructor() {
    this.nextMinute();
  }

  now(): number {
    return Date.now() + this.#ahead;
  }

  monotonic(): number {
    return performance.now();
  }

  /** Moves on to one second past the start of the next minute: a fresh window of 59 s. */
  nextMinute(): void {
    const now = this.now();
    this.#ahead += 60_000 - (now % 60_000) + 1_000;
  }
}

export function clockAtMinuteStart(): MinuteClock {
  return new MinuteClock();
}
