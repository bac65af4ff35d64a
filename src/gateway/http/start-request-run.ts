import type { FastifyReply, FastifyRequest } from 'fastify';
import { newTimeOrderedId } from '../../platform/ids.ts';
import type { Operation } from '../../storage/ports.ts';
import type { FrontDoor } from '../domain/messages.ts';
import type { GatewayDeps } from '../services/gateway-deps.ts';
import { RequestRun } from '../services/request-run.ts';

const ID_PREFIX: Record<Operation, string> = {
  chat: 'chat',
  chat_stream: 'chat',
  embed: 'emb',
  json: 'json',
};

/**
 * The run of one request, whose signal aborts when the client disconnects before the answer is
 * complete, which cancels the upstream request. `frontDoor` is the door the request came through
 * (the compatible doors pass theirs; the native routes leave the default), recorded in the ledger.
 */
export function startRequestRun(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GatewayDeps,
  operation: Operation,
  body: { task?: string | undefined; metadata?: Record<string, unknown> | undefined },
  frontDoor: FrontDoor = 'native',
): RequestRun {
  request.runStarted = true;
  const controller = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) controller.abort();
  };
  // `close` comes once per response, and the response lives as long as the request: a plain
  // listener does, without the wrapper `once` allocates.
  reply.raw.on('close', onClose);
  const elapsed = reply.elapsedTime;
  const clock = deps.clock;
  return new RequestRun(deps, {
    // The response id is the ledger's primary key: time-ordered, so rows are appended in order.
    id: newTimeOrderedId(ID_PREFIX[operation]),
    requestId: request.id,
    app: request.appName,
    operation,
    frontDoor,
    task: body.task,
    metadata: body.metadata,
    startedAt: clock.monotonic() - elapsed,
    // Epoch ms are whole (a BIGINT column in the ledger).
    receivedAt: Math.round(clock.now() - elapsed),
    signal: controller.signal,
    trace: request.traceSpan?.forRun(operation),
  });
}
