import type { FastifyReply, FastifyRequest } from 'fastify';
import { BATCH_TICKET_HEADER } from '../http/batch-tickets.ts';

const UTILIZATION_WINDOW_MS = 100;

/**
 * Live requests in flight on this instance (every /v1 request but the batch runner's own), so
 * that the runner takes batch work only when live traffic leaves room (CONTRACT 6.7). A request
 * counts from its first hook to its connection's `close`, which comes once whatever happens.
 */
export class LiveTraffic {
  #inFlight = 0;
  /** The event loop's utilisation over the last sampling window (0..1), and where that window began. */
  #utilization = 0;
  #sample = performance.eventLoopUtilization();
  #sampledAt = performance.now();
  /** Monotonic ms the last live request ended at. */
  #lastEndedAt = Number.NEGATIVE_INFINITY;

  /** The onRequest hook that counts (registered before the auth hook). */
  readonly hook = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    if (request.headers[BATCH_TICKET_HEADER] === undefined) {
      this.#inFlight++;
      reply.raw.once('close', () => {
        this.#inFlight--;
        this.#lastEndedAt = performance.now();
      });
    }
    done();
  };

  /** Whether live traffic is here: a request in flight, or one ended less than `quietMs` ago. */
  busy(quietMs: number): boolean {
    return this.#inFlight > 0 || performance.now() - this.#lastEndedAt < quietMs;
  }

  /**
   * The share of the last ~100 ms the event loop spent working (Node's event-loop utilisation):
   * near 1 when live requests keep it busy, so batch work would make them wait.
   */
  utilization(): number {
    const now = performance.now();
    if (now - this.#sampledAt >= UTILIZATION_WINDOW_MS) {
      const sample = performance.eventLoopUtilization();
      this.#utilization = performance.eventLoopUtilization(sample, this.#sample).utilization;
      this.#sample = sample;
      this.#sampledAt = now;
    }
    return this.#utilization;
  }
}
