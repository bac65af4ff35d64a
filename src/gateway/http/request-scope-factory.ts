import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../platform/clock.ts';
import { newId } from '../../platform/ids.ts';
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
  reply.raw.once('close', onClose);
  const elapsed = reply.elapsedTime;
  return createScope({
    id: newId(ID_PREFIX[operation]),
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
