import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChatInput } from '../../domain/use-case-inputs.ts';
import { writeEventStream } from '../../http/write-event-stream.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import { CACHE_HEADER, CACHE_SAVED_HEADER } from '../../services/response-cache/response-cache.ts';
import {
  type MessagesHit,
  plansARelay,
  runCachedMessages,
} from '../../services/response-cache/run-cached-messages.ts';
import type { RequestRun } from '../../services/run/request-run.ts';
import { resolveModelField } from '../../services/use-cases/address-model.ts';
import type { ChatAnswer } from '../../services/use-cases/run-chat.ts';
import {
  type MessagesAnswer,
  type MessagesInput,
  type MessagesStream,
  openMessagesStream,
  runMessages,
} from '../../services/use-cases/run-messages.ts';
import { validateToolRequest } from '../../services/use-cases/validate-tool-request.ts';
import type { AnswerContext } from '../chat-door.ts';
import { COST_HEADER, formatUsd } from '../cost-header.ts';
import { serveChat } from '../serve-chat.ts';
import { JSON_TEXT, sendAnswer, serveRun } from '../serve-run.ts';
import { ANTHROPIC_CHAT } from './anthropic-chat.ts';
import { rawBodyOf } from './raw-messages-body.ts';
import { type MessagesRequest, readMessagesRequest } from './read-messages-request.ts';
import { readRelayRequest } from './read-relay-request.ts';
import { replayRelayedMessage } from './replay-relayed-message.ts';
import { toRelayedFrames } from './to-relayed-frames.ts';

/** The client's headers that go upstream on the same-vendor lane, as it sent them. */
const FORWARDED = ['anthropic-version', 'anthropic-beta'] as const;

/**
 * POST /v1/messages in its two lanes (CONTRACT 5.2), over the doors' seam (`serveRun`: one run,
 * one record, closed whatever happens). The body is read lightly (read-relay-request.ts): an
 * attempt on an `anthropic` slot sends it upstream as the client wrote it and relays the answer
 * with the cost added (`x-gateway-cost-usd`, or `usage.cost_usd` in `message_delta`); an attempt
 * on any other slot reads it whole as the door always has (its 400s, the tools validated) and
 * answers in the gateway's translation (ANTHROPIC_CHAT). The response cache, where it serves the
 * request, keeps the lanes: a plan with an anthropic slot is cached on the same-vendor lane
 * (runCachedMessages: the upstream's own answer kept and replayed); only a plan without one goes
 * the way of every door's chat (`serveChat`), whose cache keeps the gateway's answer.
 */
export function serveMessages(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GatewayDeps,
): Promise<FastifyReply> {
  const read = readRelayRequest(request.body);
  const address = resolveModelField(deps, read.model);
  const cache = deps.responseCache.policyFor(request.appName, address.task, request.headers[CACHE_HEADER]);
  const whole = crossVendorReading(request.body, address, deps);
  const input: MessagesInput = {
    ...address,
    body: rawBodyOf(request) ?? Buffer.from(JSON.stringify(request.body)),
    headers: forwardedHeaders(request),
    maxTokens: read.maxTokens,
    tools: read.tools,
    texts: read.texts,
    crossVendor: () => whole().input,
  };
  const cached = cache !== undefined && (cache.read || cache.write) ? cache : undefined;
  // The response cache never moves a request off the same-vendor lane: only a plan without an
  // anthropic slot takes the cache of every door's chat, translated (decision 0021, amended).
  if (cached !== undefined && !plansARelay(deps, input))
    return serveChat(request, reply, deps, ANTHROPIC_CHAT);
  const start = {
    operation: read.stream ? 'chat_stream' : 'chat',
    frontDoor: 'anthropic',
    task: address.task,
    metadata: read.metadata,
    session: read.session,
  } as const;
  return serveRun(request, reply, deps, start, async (run) => {
    const context: AnswerContext = { requestId: String(request.id), receivedAt: run.receivedAt };
    const deliver = (answer: MessagesAnswer | MessagesStream | MessagesHit) =>
      deliverMessages(reply, deps, run, answer, read.stream, () => whole().request, context);
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
    const outcome = await runCachedMessages(deps, input, body, run, cached, read.stream);
    try {
      run.responseHeaders[CACHE_HEADER] = outcome.outcome;
      reply.header(CACHE_HEADER, outcome.outcome);
      if (outcome.savedUsd !== undefined)
        run.responseHeaders[CACHE_SAVED_HEADER] = formatUsd(outcome.savedUsd);
      await deliver(outcome.answer);
    } finally {
      outcome.done();
    }
  });
}

/**
 * Sends a whole answer, or writes a stream: a relayed one as the upstream wrote it with the cost
 * added, the gateway's in the door's translation, a cache hit as the upstream's message (whole) or
 * its replay as a stream (cost 0 in either).
 */
async function deliverMessages(
  reply: FastifyReply,
  deps: GatewayDeps,
  run: RequestRun,
  answer: MessagesAnswer | MessagesStream | MessagesHit,
  stream: boolean,
  request: () => MessagesRequest,
  context: AnswerContext,
): Promise<void> {
  if ('events' in answer || 'stream' in answer || (answer.lane === 'hit' && stream)) {
    const frames =
      'events' in answer
        ? toRelayedFrames(answer.events)
        : 'stream' in answer
          ? ANTHROPIC_CHAT.frames(answer.stream, request(), context)
          : replayRelayedMessage(answer.message, answer.streamUsage);
    const headers = { ...run.responseHeaders, ...ANTHROPIC_CHAT.headers(context) };
    await writeEventStream(reply, frames, deps.config.streamKeepAliveMs, headers, ANTHROPIC_CHAT.keepAlive);
    return;
  }
  reply.headers(ANTHROPIC_CHAT.headers(context));
  const relayed = (body: string, costUsd: number) => ({
    headers: { [COST_HEADER]: formatUsd(costUsd) },
    body,
    contentType: JSON_TEXT,
  });
  sendAnswer(
    reply,
    run,
    answer.lane === 'hit'
      ? relayed(answer.message, 0)
      : answer.lane === 'relay'
        ? relayed(answer.text, answer.usage.estimatedCost)
        : ANTHROPIC_CHAT.answer((answer as { answer: ChatAnswer }).answer, request(), context),
  );
}

/**
 * The body read whole for another vendor, once, on first need: the door's reading, its `model`
 * field resolved, the tools validated (their faults named as the client wrote them). Its refusal
 * is kept and thrown again to whoever asks next.
 */
function crossVendorReading(
  body: unknown,
  address: ReturnType<typeof resolveModelField>,
  deps: GatewayDeps,
): () => { request: MessagesRequest; input: ChatInput } {
  let outcome:
    | { ok: true; request: MessagesRequest; input: ChatInput }
    | { ok: false; error: unknown }
    | undefined;
  return () => {
    if (outcome === undefined) {
      try {
        const request = readMessagesRequest(body);
        const input: ChatInput = { ...request.input, ...address };
        try {
          validateToolRequest(input, deps.schemas);
        } catch (error) {
          throw ANTHROPIC_CHAT.renameFault(error);
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

function forwardedHeaders(request: FastifyRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = request.headers[name];
    const text = Array.isArray(value) ? value.join(',') : value;
    if (text !== undefined) headers[name] = text;
  }
  return headers;
}
