import type { FastifyInstance } from 'fastify';
import { sendError } from './error-handler.ts';
import { ApiError } from './errors.ts';

/**
 * Fastify's own answer to a request arriving while the server drains (`return503OnClosing`) is a
 * body of its own shape with no request id. With that turned off, this hook, the first of every
 * request, answers 503 `shutting_down` in the envelope; `connection: close` tells the client (or
 * its pool) to take the next request elsewhere.
 */
export function refuseWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (!closing) {
      done();
      return;
    }
    reply.header('x-request-id', request.id).header('connection', 'close');
    sendError(
      reply,
      new ApiError('shutting_down', 'the server is shutting down; retry on another connection', {
        headers: { 'retry-after': '1' },
      }),
    );
  });
}
