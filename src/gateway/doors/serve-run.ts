import type { FastifyReply, FastifyRequest } from 'fastify';
import { applyInputGuards } from '../http/guard-input.ts';
import { type RunStart, startRequestRun } from '../http/start-request-run.ts';
import type { GatewayDeps } from '../services/gateway-deps.ts';
import { ClientClosedError } from '../services/run/client-closed-error.ts';
import type { RequestRun } from '../services/run/request-run.ts';
import type { DoorAnswer } from './chat-door.ts';

/**
 * The edge of every request that runs a use case, on every door: starts the request's run, lets
 * `answer` send the answer (or write the stream), and closes the run in `finally`, whatever
 * happened in between (CONTRACT 5.1): the run finishes with the failure that escaped, as 499
 * `client_closed` when the client was gone before the answer was written whole, or as a success.
 * A run already finished (a use case that failed) or never admitted (refused by a limit) is left
 * as it is; a held stream that nobody read to its end is ended here.
 */
export function serveRun(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GatewayDeps,
  start: RunStart,
  answer: (run: RequestRun) => Promise<unknown>,
): Promise<FastifyReply> {
  return serveRuns(request, reply, deps, (runs) => {
    const run = runs.start(start);
    // A request the input guards blocked leaves its row here and goes no further (CONTRACT 6.6).
    applyInputGuards(request, run);
    return answer(run);
  });
}

/**
 * The edge of a request that may start several runs (an MCP POST's tool calls, a run each): the
 * runs start through `runs.start` as `answer` needs them, and every one is closed in `finally`
 * as serveRun closes its one. The only place runs start and close.
 */
export async function serveRuns(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GatewayDeps,
  answer: (runs: RequestRuns) => Promise<unknown>,
): Promise<FastifyReply> {
  const runs = new RequestRuns(request, reply, deps);
  let failure: unknown;
  try {
    await answer(runs);
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    await runs.close(failure);
  }
  return reply;
}

/** The runs one HTTP request started, closed together by the edge once its answer was sent. */
export class RequestRuns {
  readonly #request: FastifyRequest;
  readonly #reply: FastifyReply;
  readonly #deps: GatewayDeps;
  readonly #runs: RequestRun[] = [];

  constructor(request: FastifyRequest, reply: FastifyReply, deps: GatewayDeps) {
    this.#request = request;
    this.#reply = reply;
    this.#deps = deps;
  }

  start(start: RunStart): RequestRun {
    const run = startRequestRun(this.#request, this.#reply, this.#deps, start);
    this.#runs.push(run);
    return run;
  }

  async close(failure: unknown): Promise<void> {
    for (const run of this.#runs) await run.close(failure ?? unanswered(this.#reply, run));
  }
}

/**
 * Sends a whole answer: the run's headers (its limits' state, known once the use case admitted
 * the request), the door's, then the body.
 */
export function sendAnswer(reply: FastifyReply, run: RequestRun, answer: DoorAnswer): void {
  reply.headers(run.responseHeaders).headers(answer.headers);
  if (answer.contentType !== undefined) reply.type(answer.contentType);
  reply.send(answer.body);
}

/** What a door sends for a body it wrote as JSON itself (embeddings). */
export const JSON_TEXT = 'application/json; charset=utf-8';

/**
 * The client left before the answer was handed over whole: its connection's `close` came before
 * the answer was (the run was told), or the connection is gone and nothing was ended on it (a
 * writer that stopped at a closed socket).
 */
function unanswered(reply: FastifyReply, run: RequestRun): ClientClosedError | undefined {
  const raw = reply.raw;
  return run.signal.aborted || (raw.destroyed && !raw.writableEnded) ? new ClientClosedError() : undefined;
}
