import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../platform/clock.ts';
import { newTimeOrderedId } from '../../platform/ids.ts';
import type { Operation } from '../../storage/ports.ts';
import { createScope, type RequestScope } from '../services/request-scope.ts';

const ID_PREFIX: Record<Operation, string> = {
  chat: 'chat',
  chat_stream: 'chat',
  embed: 'emb',
  json: 'json',
};

/**
 * A scope whose signal aborts when the client disconnects before the answer is complete,
 * which cancels the upstream request.
 */
export function scopeFor(
  request: FastifyRequest,
  reply: FastifyReply,
  clock: Clock,
  operation: Operation,
  body: { task?: string | undefined; metadata?: Record<string, unknown> | undefined },
): RequestScope {
  const controller = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) controller.abort();
  };
  // `close` comes once per response, and the response lives as long as the request: a plain
  // listener does, without the wrapper `once` allocates.
  reply.raw.on('close', onClose);
  const elapsed = reply.elapsedTime;
  return createScope({
    // The response id is the ledger's primary key: time-ordered, so rows are appended in order.
    id: newTimeOrderedId(ID_PREFIX[operation]),
    requestId: request.id,
    app: request.appName,
    operation,
    task: body.task,
    metadata: body.metadata,
    startedAt: clock.monotonic() - elapsed,
    // Epoch ms are whole (a BIGINT column in the ledger).
    receivedAt: Math.round(clock.now() - elapsed),
    signal: controller.signal,
  });
}
