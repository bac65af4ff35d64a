import type { FastifyInstance } from 'fastify';
import { sendError } from './error-handler.ts';
import { ApiError } from './errors.ts';

/**
 * At most `limit` requests in progress per client address. A request counts from its first byte
 * of headers being parsed until its answer is finished or its connection is gone, so connections
 * trickling a body count, and idle keep-alive connections (bounded by the keep-alive timeout) do
 * not. The address is `request.ip`, which honours TRUST_PROXY: behind a load balancer each client
 * is counted, not the balancer. Past the limit the answer is 429 `rate_limited` with
 * `connection: close`, so the extra connection goes away.
 */
export function capConcurrentRequestsPerClient(app: FastifyInstance, limit: number): void {
  // One entry per address with a request in progress: the map never outgrows the open connections.
  const inProgress = new Map<string, number>();
  app.addHook('onRequest', (request, reply, done) => {
    const address = request.ip;
    const count = inProgress.get(address) ?? 0;
    if (count >= limit) {
      reply.header('connection', 'close');
      sendError(
        reply,
        new ApiError('rate_limited', `more than ${limit} requests in progress from this client address`, {
          headers: { 'retry-after': '1' },
        }),
      );
      return;
    }
    inProgress.set(address, count + 1);
    reply.raw.once('close', () => {
      const left = (inProgress.get(address) ?? 1) - 1;
      if (left <= 0) inProgress.delete(address);
      else inProgress.set(address, left);
    });
    done();
  });
}
