import type { FastifyReply, FastifyRequest } from 'fastify';
import { settleDeferredBody } from '../../platform/json-thread/deferred-json-body.ts';
import { requestGuardsOf } from '../http/guard-input.ts';
import { writeEventStream } from '../http/write-event-stream.ts';
import type { GatewayDeps } from '../services/gateway-deps.ts';
import { CACHE_HEADER } from '../services/response-cache/response-cache.ts';
import { runCachedChat } from '../services/response-cache/run-cached-chat.ts';
import { plansARelay } from '../services/response-cache/run-cached-pass-through.ts';
import type { RequestRun } from '../services/run/request-run.ts';
import { resolveModelField } from '../services/use-cases/address-model.ts';
import { guardAnswer } from '../services/use-cases/guard-answer.ts';
import { type ChatAnswer, runChat } from '../services/use-cases/run-chat.ts';
import { answerAsStream, type ChatStream, openChatStream } from '../services/use-cases/run-chat-stream.ts';
import type { JsonAnswer } from '../services/use-cases/run-json.ts';
import { validateToolRequest } from '../services/use-cases/validate-tool-request.ts';
import { answerJson, sayCacheExpected, sayCacheOutcome } from './cache-outcome.ts';
import type { AnswerContext, ChatDoor, DoorChatRequest } from './chat-door.ts';
import { laneInput, serveLane } from './serve-lane.ts';
import { sendAnswer, serveRun } from './serve-run.ts';

/**
 * The one chat entry, for every door: reads the body through the door, resolves its `model`
 * field, validates the tools (before the run starts: a request refused here never ran; the door
 * renames the fault's fields to its own), starts the run, answers or streams in the door's shape,
 * and closes the run whatever happens (`serveRun`). A door is a `ChatDoor` of pure parts; what
 * it cannot forget (tool validation, the run's record, its limits, the response cache where the
 * configuration or the request's `x-gateway-cache` turns it on) happens here. It chooses the
 * answer (whole or streamed), the response cache and the lane: a door whose description has a
 * same-vendor lane (`passThrough`) is served on it (serve-lane.ts), but where the response cache
 * is on and no planned slot takes the lane.
 */
export function serveChat<R extends DoorChatRequest>(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GatewayDeps,
  door: ChatDoor<R>,
): Promise<FastifyReply> {
  const lane = door.passThrough;
  if (lane === undefined || outputGuardsRefuseLane(request, lane.outputGuardable))
    return serveTranslated(request, reply, deps, door);
  const read = lane.read(request);
  const address = resolveModelField(deps, read.model);
  const cache = deps.responseCache.policyFor(request.appName, address.task, request.headers[CACHE_HEADER]);
  const input = laneInput(request, deps, door, lane, read, address);
  // The response cache never moves a request off the same-vendor lane: only a plan without a slot
  // of the lane's kinds takes the cache of every door's chat, translated (decision 0021, amended).
  if (cache !== undefined && (cache.read || cache.write) && !plansARelay(deps, input))
    return serveTranslated(request, reply, deps, door);
  return serveLane(request, reply, deps, door, lane, read, input, cache);
}

/** A chat in the gateway's translation: the door's reading, the use case chosen, the door's answer. */
async function serveTranslated<R extends DoorChatRequest>(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GatewayDeps,
  door: ChatDoor<R>,
): Promise<FastifyReply> {
  // A lane's large body not parsed yet is parsed on the JSON thread, not here.
  await settleDeferredBody(request);
  const read = door.read(request.body);
  const address = read.model === undefined ? undefined : resolveModelField(deps, read.model);
  const start = { frontDoor: door.frontDoor, metadata: read.metadata, session: read.session };
  if (read.use === 'json') {
    const input = address === undefined ? read.input : { ...read.input, ...address };
    // Structured output is cached as its own kind of entry; a hit streamed is replayed as any answer.
    const cache = deps.responseCache.policyFor(request.appName, input.task, request.headers[CACHE_HEADER]);
    return serveRun(request, reply, deps, { ...start, operation: 'json', task: input.task }, async (run) => {
      const answer = jsonAsChat(await answerJson(reply, deps, input, run, cache));
      await deliver(reply, deps, door, read, run, read.stream ? answerAsStream(answer) : answer);
    });
  }
  const input = address === undefined ? read.input : { ...read.input, ...address };
  try {
    validateToolRequest(input, deps.schemas);
  } catch (error) {
    throw door.renameFault(error, read);
  }
  const operation = read.stream ? 'chat_stream' : 'chat';
  const cache = deps.responseCache.policyFor(request.appName, input.task, request.headers[CACHE_HEADER]);
  if (cache === undefined) {
    return serveRun(request, reply, deps, { ...start, operation, task: input.task }, async (run) => {
      const answer = read.stream ? await openChatStream(input, run) : await runChat(input, run);
      await deliver(reply, deps, door, read, run, answer);
    });
  }
  return serveRun(request, reply, deps, { ...start, operation, task: input.task }, async (run) => {
    sayCacheExpected(reply, cache);
    const cached = await runCachedChat(input, run, deps.responseCache, cache, read.stream);
    try {
      sayCacheOutcome(reply, run, cached);
      await deliver(reply, deps, door, read, run, cached.answer);
    } finally {
      cached.done();
    }
  });
}

/** Sends a whole answer, or writes a stream, in the door's shape. */
async function deliver<R extends DoorChatRequest>(
  reply: FastifyReply,
  deps: GatewayDeps,
  door: ChatDoor<R>,
  read: R,
  run: RequestRun,
  unguarded: ChatAnswer | ChatStream,
): Promise<void> {
  const answer = await guardAnswer(deps.guardrails, requestGuardsOf(reply.request), run, unguarded);
  const context: AnswerContext = { requestId: String(reply.request.id), receivedAt: run.receivedAt };
  if ('start' in answer) {
    const headers = { ...run.responseHeaders, ...door.headers(context, read) };
    const frames = door.frames(answer, read, context);
    await writeEventStream(reply, frames, deps.config.streamKeepAliveMs, headers, door.keepAlive);
    return;
  }
  reply.headers(door.headers(context, read));
  sendAnswer(reply, run, door.answer(answer, read, context));
}

/** The JSON use case's answer as a chat answer: the validated value, as JSON text. */
function jsonAsChat(answer: JsonAnswer): ChatAnswer {
  return {
    id: answer.id,
    provider: answer.provider,
    model: answer.model,
    message: { role: 'assistant', content: JSON.stringify(answer.data) },
    finishReason: 'stop',
    usage: answer.usage,
    latencyMs: answer.latencyMs,
  };
}

/**
 * Whether the same-vendor lane must not be taken because of the output guards: its events are not
 * guardable (the Gemini door's), or the request streams and an output webhook applies (the lane's
 * events go through the detectors' window only; the translated stream asks the webhook too).
 */
function outputGuardsRefuseLane(request: FastifyRequest, guardable: boolean): boolean {
  const guards = requestGuardsOf(request);
  if (guards === undefined || guards.output.length === 0) return false;
  if (!guardable) return true;
  const streams = (request.body as { stream?: unknown } | null)?.stream === true;
  return streams && guards.output.some((guard) => guard.webhook !== undefined);
}
