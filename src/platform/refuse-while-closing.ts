import type { FastifyInstance, FastifyReply } from 'fastify';
import { sendError } from './error-handler.ts';
import { ApiError } from './errors.ts';

export interface ClosingState {
  /** True once the server has begun to close (SIGTERM): it drains, and takes no new work. */
  readonly closing: boolean;
}

/** Tracks whether `app` is closing; the request hook reads it, so refusing costs no hook of its own. */
export function watchClosing(app: FastifyInstance): ClosingState {
  const state = { closing: false };
  app.addHook('preClose', (done) => {
    state.closing = true;
    done();
  });
  return state;
}

/**
 * Fastify's own answer to a request arriving while the server drains (`return503OnClosing`) is a
 * body of its own shape with no request id. With that turned off, a request arriving then gets 503
 * `shutting_down` in the envelope; `connection: close` tells the client (or its pool) to take the
 * next request elsewhere.
 */
export function refuseWhileClosing(reply: FastifyReply): void {
  reply.header('connection', 'close');
  sendError(
    reply,
    new ApiError('shutting_down', 'the server is shutting down; retry on another connection', {
      headers: { 'retry-after': '1' },
    }),
  );
}
