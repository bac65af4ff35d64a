import { hash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { newTimeOrderedId } from '../../platform/ids.ts';
import type { Operation } from '../../storage/ports.ts';
import type { FrontDoor } from '../domain/messages.ts';
import { readEndUser, readSessionKey, type SessionFields } from '../domain/session-key.ts';
import type { GatewayDeps } from '../services/gateway-deps.ts';
import { RequestRun } from '../services/run/request-run.ts';

/** What the edge knows of a request when its run starts. */
export interface RunStart {
  operation: Operation;
  /** The door the request came through, recorded in the ledger. */
  frontDoor: FrontDoor;
  task: string | undefined;
  metadata: Record<string, unknown> | undefined;
  /** What the body names of a session (CONTRACT 5.6), where the door reads one. */
  session?: SessionFields | undefined;
}

const ID_PREFIX: Record<Operation, string> = {
  chat: 'chat',
  chat_stream: 'chat',
  embed: 'emb',
  json: 'json',
  mcp_tool: 'mcp',
};

/**
 * The run of one request, told when its client disconnects before the answer is complete, which
 * cancels the upstream request. A client may have left already, while its body was read and
 * checked: its connection's `close` has come and gone, so the run is told at once, and makes no
 * upstream call for nobody. The session key comes from the headers, else from the body's
 * `session` fields the door read.
 */
export function startRequestRun(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GatewayDeps,
  start: RunStart,
): RequestRun {
  request.runStarted = true;
  const elapsed = reply.elapsedTime;
  const clock = deps.clock;
  const run = new RequestRun(deps, {
    // The response id is the ledger's primary key: time-ordered, so rows are appended in order.
    // A batch request's id is fixed by its batch, so that a request run again after a crash meets
    // its first row in the ledger instead of adding a second (CONTRACT 6.7).
    id: request.batchTicket?.ledgerId ?? newTimeOrderedId(ID_PREFIX[start.operation]),
    batchId: request.batchTicket?.batchId,
    requestId: request.id,
    app: request.appName,
    operation: start.operation,
    frontDoor: start.frontDoor,
    task: start.task,
    metadata: start.metadata,
    sessionKey: readSessionKey(request.headers, start.session),
    endUser: readEndUser(request.headers, start.session ?? {}, hashEndUser),
    team: request.principal?.team,
    startedAt: clock.monotonic() - elapsed,
    // Epoch ms are whole (a BIGINT column in the ledger).
    receivedAt: Math.round(clock.now() - elapsed),
    trace: request.traceSpan?.forRun(start.operation),
  });
  const raw = reply.raw;
  if (raw.destroyed) run.clientLeft();
  else {
    // `close` comes once per response, and the response lives as long as the request: a plain
    // listener does, without the wrapper `once` allocates.
    raw.on('close', () => {
      if (!raw.writableFinished) run.clientLeft();
    });
  }
  return run;
}

function hashEndUser(value: string): string {
  return hash('sha256', value, 'hex');
}
