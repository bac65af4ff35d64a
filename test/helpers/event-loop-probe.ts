import type { FastifyInstance } from 'fastify';

export interface ProbeResult {
  /** Longest a GET /health took, counted from when it was due: time spent waiting for a busy event loop counts. */
  maxHealthMs: number;
  /** Health requests answered while the probe ran. */
  answered: number;
}

const PROBE_EVERY_MS = 5;

/**
 * Sends GET /health every few milliseconds through `inject` (same process, same event loop) and
 * reports the worst latency from each request's due time. A handler that blocks the loop for
 * 300 ms shows up as a ~300 ms health answer, which is what another client would see.
 */
export function probeHealth(app: FastifyInstance): { stop(): Promise<ProbeResult> } {
  let maxHealthMs = 0;
  let answered = 0;
  const pending = new Set<Promise<unknown>>();
  let due = performance.now() + PROBE_EVERY_MS;
  const timer = setInterval(() => {
    const dueAt = due;
    due = Math.max(due + PROBE_EVERY_MS, performance.now());
    const request = app.inject({ method: 'GET', url: '/health' }).then(() => {
      maxHealthMs = Math.max(maxHealthMs, performance.now() - dueAt);
      answered++;
    });
    pending.add(request);
    void request.finally(() => pending.delete(request));
  }, PROBE_EVERY_MS);
  return {
    async stop() {
      // Let one more tick run: a tick delayed by a blocked loop fires only after the blocking
      // request's own continuation, so stopping at once would miss exactly the stall.
      await new Promise((resolve) => setTimeout(resolve, 3 * PROBE_EVERY_MS));
      clearInterval(timer);
      await Promise.all(pending);
      return { maxHealthMs, answered };
    },
  };
}

/** Worst event-loop lateness of a 1 ms timer while `work` runs: for tests without a server. */
export async function measureLoopStall<T>(
  work: () => Promise<T>,
): Promise<{ value: T; maxStallMs: number; elapsedMs: number }> {
  let maxStallMs = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    maxStallMs = Math.max(maxStallMs, now - last - 1);
    last = now;
  }, 1);
  const start = performance.now();
  try {
    const value = await work();
    const elapsedMs = performance.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { value, maxStallMs: Math.max(maxStallMs, performance.now() - last - 1), elapsedMs };
  } finally {
    clearInterval(timer);
  }
}
