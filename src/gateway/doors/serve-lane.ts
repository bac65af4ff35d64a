import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChatInput } from '../domain/use-case-inputs.ts';
import { bodyWasRewritten, requestGuardsOf } from '../http/guard-input.ts';
import { writeEventStream } from '../http/write-event-stream.ts';
import type { GatewayDeps } from '../services/gateway-deps.ts';
import { CACHE_HEADER, type CachePolicy } from '../services/response-cache/response-cache.ts';
import { type MessagesHit, runCachedMessages } from '../services/response-cache/run-cached-messages.ts';
import type { RequestRun } from '../services/run/request-run.ts';
import type { resolveModelField } from '../services/use-cases/address-model.ts';
import { guardAnswer } from '../services/use-cases/guard-answer.ts';
import { guardRelayEvents, guardRelayedMessage } from '../services/use-cases/guard-relay.ts';
import type { ChatAnswer } from '../services/use-cases/run-chat.ts';
import type { ChatStream } from '../services/use-cases/run-chat-stream.ts';
import {
  type MessagesAnswer,
  type MessagesInput,
  type MessagesStream,
  openMessagesStream,
  runMessages,
} from '../services/use-cases/run-messages.ts';
import { validateToolRequest } from '../services/use-cases/validate-tool-request.ts';
import { sayCacheOutcome } from './cache-outcome.ts';
import type {
  AnswerContext,
  ChatDoor,
  DoorChatRequest,
  PassThrough,
  PassThroughRequest,
} from './chat-door.ts';
import { sendAnswer, serveRun } from './serve-run.ts';

type Address = ReturnType<typeof resolveModelField>;

/** The lane's use-case input, and the door's whole reading of the body, made on first need. */
type LaneInput<R> = MessagesInput & { whole(): { request: R; input: ChatInput } };

/**
 * A door's chat on its same-vendor lane (CONTRACT 5.2, decision 0019), over the doors' seam
 * (`serveRun`: one run, one record, closed whatever happens). The body was read lightly by the
 * lane's description: an attempt on a slot of the lane's kinds sends it upstream as the client
 * wrote it and relays the answer with the cost added; an attempt on any other slot reads it whole
 * through the door (its 400s, the tools validated) and answers in the door's translation. With the
 * response cache on (`cache`), the lane is kept: the upstream's own answer is kept and replayed.
 */
export function serveLane<R extends DoorChatRequest>(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GatewayDeps,
  door: ChatDoor<R>,
  lane: PassThrough,
  read: PassThroughRequest,
  input: LaneInput<R>,
  cache: CachePolicy | undefined,
): Promise<FastifyReply> {
  const start = {
    operation: read.stream ? 'chat_stream' : 'chat',
    frontDoor: door.frontDoor,
    task: input.task,
    metadata: read.metadata,
    session: read.session,
  } as const;
  const cached = cache !== undefined && (cache.read || cache.write) ? cache : undefined;
  return serveRun(request, reply, deps, start, async (run) => {
    const context: AnswerContext = { requestId: String(request.id), receivedAt: run.receivedAt };
    const deliver = (answer: MessagesAnswer | MessagesStream | MessagesHit) =>
      deliverLane(reply, deps, run, door, lane, answer, read.stream, context, input);
    if (cached === undefined) {
      // A cached route's request that said `bypass`: neither read nor kept, and told so (CONTRACT 5.5).
      if (cache !== undefined) {
        run.responseHeaders[CACHE_HEADER] = 'bypass';
        reply.header(CACHE_HEADER, 'bypass');
      }
      await deliver(
        read.stream ? await openMessagesStream(deps, input, run) : await runMessages(deps, input, run),
      );
      return;
    }
    // Said on an error answer too: the reply's headers reach the doors' error handler.
    reply.header(CACHE_HEADER, 'miss');
    const body = request.body as Record<string, unknown>;
    const outcome = await runCachedMessages(deps, input, body, run, cached, read.stream, lane.keeper);
    try {
      sayCacheOutcome(reply, run, outcome);
      await deliver(outcome.answer);
    } finally {
      outcome.done();
    }
  });
}

/**
 * What the lane's use case is given of a request read lightly: the bytes and headers that go
 * upstream, what routing and limits need, and the body read whole through the door on first need.
 */
export function laneInput<R extends DoorChatRequest>(
  request: FastifyRequest,
  deps: GatewayDeps,
  door: ChatDoor<R>,
  lane: PassThrough,
  read: PassThroughRequest,
  address: Address,
): LaneInput<R> {
  const whole = crossVendorReading(request.body, address, deps, door);
  return {
    ...address,
    laneKinds: lane.slotKinds,
    laneWire: lane.wire,
    // A body an input guard masked goes as the gateway writes it: its original bytes hold the match.
    body:
      (bodyWasRewritten(request) ? undefined : lane.bytes(request)) ??
      Buffer.from(JSON.stringify(request.body)),
    headers: forwardedHeaders(request, lane.forwardedHeaders),
    maxTokens: read.maxTokens,
    tools: read.tools,
    texts: read.texts,
    crossVendor: () => whole().input,
    whole,
  };
}

/**
 * Sends a whole answer, or writes a stream: a relayed one as the upstream wrote it with the cost
 * added, the gateway's in the door's translation, a cache hit as the upstream's answer (whole) or
 * its replay as a stream (cost 0 in either).
 */
async function deliverLane<R extends DoorChatRequest>(
  reply: FastifyReply,
  deps: GatewayDeps,
  run: RequestRun,
  door: ChatDoor<R>,
  lane: PassThrough,
  answer: MessagesAnswer | MessagesStream | MessagesHit,
  stream: boolean,
  context: AnswerContext,
  input: LaneInput<R>,
): Promise<void> {
  const guards = requestGuardsOf(reply.request);
  if (guards !== undefined && guards.output.length > 0) answer = await guardLane(deps, guards, run, answer);
  if ('events' in answer || 'stream' in answer || (answer.lane === 'hit' && stream)) {
    const frames =
      'events' in answer
        ? lane.frames(answer.events)
        : 'stream' in answer
          ? door.frames(answer.stream, input.whole().request, context)
          : lane.replay(answer.message, answer.streamUsage);
    // The translated answer's headers may depend on the request (the Gemini door's ignored fields).
    const read = 'stream' in answer ? input.whole().request : undefined;
    const headers = { ...run.responseHeaders, ...door.headers(context, read) };
    await writeEventStream(reply, frames, deps.config.streamKeepAliveMs, headers, door.keepAlive);
    return;
  }
  reply.headers(door.headers(context, answer.lane === 'chat' ? input.whole().request : undefined));
  sendAnswer(
    reply,
    run,
    answer.lane === 'hit'
      ? lane.answer(answer.message, 0)
      : answer.lane === 'relay'
        ? lane.answer(answer.text, answer.usage.estimatedCost)
        : door.answer(answer.answer, input.whole().request, context),
  );
}

/**
 * The output guards (CONTRACT 6.6) over each lane's answer: the relayed events or Message
 * (guard-relay.ts: Anthropic's events, the only lane so far), a cached Message before it is
 * replayed, the translated chat's answer.
 */
async function guardLane(
  deps: GatewayDeps,
  guards: NonNullable<ReturnType<typeof requestGuardsOf>>,
  run: RequestRun,
  answer: MessagesAnswer | MessagesStream | MessagesHit,
): Promise<MessagesAnswer | MessagesStream | MessagesHit> {
  const guardrails = deps.guardrails;
  if ('events' in answer)
    return { ...answer, events: guardRelayEvents(guardrails, guards, run, answer.events) };
  if ('stream' in answer)
    return { ...answer, stream: (await guardAnswer(guardrails, guards, run, answer.stream)) as ChatStream };
  if (answer.lane === 'hit')
    return { ...answer, message: await guardRelayedMessage(guardrails, guards, run, answer.message) };
  if (answer.lane === 'relay')
    return { ...answer, text: await guardRelayedMessage(guardrails, guards, run, answer.text) };
  return { ...answer, answer: (await guardAnswer(guardrails, guards, run, answer.answer)) as ChatAnswer };
}

/**
 * The body read whole for another vendor, once, on first need: the door's reading, its `model`
 * field resolved, the tools validated (their faults named as the client wrote them). Its refusal
 * is kept and thrown again to whoever asks next.
 */
function crossVendorReading<R extends DoorChatRequest>(
  body: unknown,
  address: Address,
  deps: GatewayDeps,
  door: ChatDoor<R>,
): () => { request: R; input: ChatInput } {
  let outcome: { ok: true; request: R; input: ChatInput } | { ok: false; error: unknown } | undefined;
  return () => {
    if (outcome === undefined) {
      try {
        const request = door.read(body);
        if (request.use !== 'chat') throw new Error('a same-vendor lane reads a chat');
        const input: ChatInput = { ...request.input, ...address };
        try {
          validateToolRequest(input, deps.schemas);
        } catch (error) {
          throw door.renameFault(error);
        }
        outcome = { ok: true, request, input };
      } catch (error) {
        outcome = { ok: false, error };
      }
    }
    if (!outcome.ok) throw outcome.error;
    return outcome;
  };
}

function forwardedHeaders(request: FastifyRequest, names: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of names) {
    const value = request.headers[name];
    const text = Array.isArray(value) ? value.join(',') : value;
    if (text !== undefined) headers[name] = text;
  }
  return headers;
}
