import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FrontDoor } from '../domain/messages.ts';
import type { ModelAddress } from '../domain/model-addressing.ts';
import type { EmbedInput, JsonInput } from '../domain/use-case-inputs.ts';
import type { GatewayDeps } from '../services/gateway-deps.ts';
import { CACHE_HEADER } from '../services/response-cache/response-cache.ts';
import { resolveModelField } from '../services/use-cases/address-model.ts';
import { type EmbedAnswer, runEmbed } from '../services/use-cases/run-embed.ts';
import { answerJson } from './cache-outcome.ts';
import { type DoorAnswer, NO_HEADERS } from './chat-door.ts';
import { sendAnswer, serveRun } from './serve-run.ts';

/** A door's embeddings, in pure parts: what it reads of the body, and how it writes the answer. */
export interface EmbedDoor<R extends EmbedReading> {
  frontDoor: FrontDoor;
  /** The body read and checked; `address` resolves a vendor door's `model` field (its 400 first). */
  read(body: unknown, address: (model: string) => ModelAddress): R;
  answer(answer: EmbedAnswer, request: R): DoorAnswer;
}

export interface EmbedReading {
  input: EmbedInput;
  task: string | undefined;
  metadata: Record<string, unknown> | undefined;
}

/**
 * The embeddings entry, for every door: reads the body through the door (before the run starts:
 * a request refused here never ran), runs the use case in a run of its own (`serveRun`), and
 * sends the door's answer.
 */
export function serveEmbed<R extends EmbedReading>(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GatewayDeps,
  door: EmbedDoor<R>,
): Promise<FastifyReply> {
  const read = door.read(request.body, (model) => resolveModelField(deps, model, 'embed'));
  const start = {
    operation: 'embed',
    frontDoor: door.frontDoor,
    task: read.task,
    metadata: read.metadata,
  } as const;
  return serveRun(request, reply, deps, start, async (run) => {
    sendAnswer(reply, run, door.answer(await runEmbed(deps, read.input, run), read));
  });
}

/**
 * The structured-output entry (`POST /v1/json`): through the response cache where the
 * configuration or the request's `x-gateway-cache` turns it on (an unknown value of that header is
 * a 400 before the run starts), the answer as the use case gives it.
 */
export function serveJson(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GatewayDeps,
  frontDoor: FrontDoor,
  input: JsonInput & { metadata?: Record<string, unknown> | undefined },
): Promise<FastifyReply> {
  const cache = deps.responseCache.policyFor(request.appName, input.task, request.headers[CACHE_HEADER]);
  const start = { operation: 'json', frontDoor, task: input.task, metadata: input.metadata } as const;
  return serveRun(request, reply, deps, start, async (run) => {
    sendAnswer(reply, run, { headers: NO_HEADERS, body: await answerJson(reply, deps, input, run, cache) });
  });
}
