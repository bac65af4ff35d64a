import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChatInput } from '../../domain/use-case-inputs.ts';
import { writeEventStream } from '../../http/write-event-stream.ts';
import { resolveModelField } from '../../services/address-model.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import { CACHE_HEADER } from '../../services/response-cache.ts';
import { type MessagesInput, openMessagesStream, runMessages } from '../../services/run-messages.ts';
import { validateToolRequest } from '../../services/validate-tool-request.ts';
import type { AnswerContext } from '../chat-door.ts';
import { COST_HEADER, formatCost } from '../cost-header.ts';
import { serveChat } from '../serve-chat.ts';
import { JSON_TEXT, sendAnswer, serveRun } from '../serve-run.ts';
import { ANTHROPIC_CHAT } from './anthropic-chat.ts';
import { rawBodyOf } from './raw-messages-body.ts';
import { type MessagesRequest, readMessagesRequest } from './read-messages-request.ts';
import { readRelayRequest } from './read-relay-request.ts';
import { toRelayedFrames } from './to-relayed-frames.ts';

/** The client's headers that go upstream on the same-vendor lane, as it sent them. */
const FORWARDED = ['anthropic-version', 'anthropic-beta'] as const;

/**
 * POST /v1/messages in its two lanes (CONTRACT 5.2), over the doors' seam (`serveRun`: one run,
 * one record, closed whatever happens). The body is read lightly (read-relay-request.ts): an
 * attempt on an `anthropic` slot sends it upstream as the client wrote it and relays the answer
 * with the cost added (`x-gateway-cost-usd`, or `usage.cost_usd` in `message_delta`); an attempt
 * on any other slot reads it whole as the door always has (its 400s, the tools validated) and
 * answers in the gateway's translation (ANTHROPIC_CHAT). A request the response cache serves
 * goes the way of every door's chat (`serveChat`), translated on every slot.
 */
export function serveMessages(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GatewayDeps,
): Promise<FastifyReply> {
  const read = readRelayRequest(request.body);
  const address = resolveModelField(deps, read.model);
  // The response cache keeps and replays the gateway's own answers: where it serves the request,
  // the door reads the body whole and answers as it always did (decision 0019).
  const cache = deps.responseCache.policyFor(request.appName, address.task, request.headers[CACHE_HEADER]);
  if (cache !== undefined && (cache.read || cache.write))
    return serveChat(request, reply, deps, ANTHROPIC_CHAT);
  const whole = crossVendorReading(request.body, address, deps);
  const input: MessagesInput = {
    ...address,
    body: rawBodyOf(request) ?? JSON.stringify(request.body),
    headers: forwardedHeaders(request),
    maxTokens: read.maxTokens,
    tools: read.tools,
    texts: read.texts,
    crossVendor: () => whole().input,
  };
  const start = {
    operation: read.stream ? 'chat_stream' : 'chat',
    frontDoor: 'anthropic',
    task: address.task,
    metadata: read.metadata,
    session: read.session,
  } as const;
  return serveRun(request, reply, deps, start, async (run) => {
    const context: AnswerContext = { requestId: String(request.id), receivedAt: run.receivedAt };
    // A cached route's request that said `bypass`: neither read nor kept, and told so (CONTRACT 5.5).
    if (cache !== undefined) {
      run.responseHeaders[CACHE_HEADER] = 'bypass';
      reply.header(CACHE_HEADER, 'bypass');
    }
    if (read.stream) {
      const opened = await openMessagesStream(deps, input, run);
      const frames =
        opened.lane === 'relay'
          ? toRelayedFrames(opened.events)
          : ANTHROPIC_CHAT.frames(opened.stream, whole().request, context);
      const headers = { ...run.responseHeaders, ...ANTHROPIC_CHAT.headers(context) };
      await writeEventStream(reply, frames, deps.config.streamKeepAliveMs, headers, ANTHROPIC_CHAT.keepAlive);
      return;
    }
    const answer = await runMessages(deps, input, run);
    reply.headers(ANTHROPIC_CHAT.headers(context));
    sendAnswer(
      reply,
      run,
      answer.lane === 'relay'
        ? { headers: { [COST_HEADER]: formatCost(answer.usage) }, body: answer.text, contentType: JSON_TEXT }
        : ANTHROPIC_CHAT.answer(answer.answer, whole().request, context),
    );
  });
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
