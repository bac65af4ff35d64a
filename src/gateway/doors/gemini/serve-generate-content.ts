import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChatInput } from '../../domain/use-case-inputs.ts';
import { writeEventStream } from '../../http/write-event-stream.ts';
import { resolveModelField } from '../../services/address-model.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import { planOrFail } from '../../services/plan-or-fail.ts';
import { CACHE_HEADER } from '../../services/response-cache.ts';
import {
  type MessagesAnswer,
  type MessagesInput,
  type MessagesStream,
  openMessagesStream,
  runMessages,
} from '../../services/run-messages.ts';
import { validateToolRequest } from '../../services/validate-tool-request.ts';
import type { AnswerContext } from '../chat-door.ts';
import { COST_HEADER, formatUsd } from '../cost-header.ts';
import { serveChat } from '../serve-chat.ts';
import { JSON_TEXT, sendAnswer, serveRun } from '../serve-run.ts';
import { type GenerateTarget, geminiChat } from './gemini-chat.ts';
import { rawGeminiBodyOf } from './raw-gemini-body.ts';
import { type GeminiRequest, readGeminiRequest } from './read-gemini-request.ts';
import { readRelayFields } from './read-relay-fields.ts';
import { toRelayedChunks } from './to-relayed-chunks.ts';

/**
 * generateContent and streamGenerateContent in their two lanes (CONTRACT 6.3). When the plan
 * holds a `gemini` slot, each attempt takes its slot's lane (services/run-messages.ts, as the
 * Anthropic door's): a gemini slot gets the client's bytes (the model in the path) and its
 * answer goes back as Google wrote it, the cost in `x-gateway-cost-usd` or spliced into the last
 * chunk's `usageMetadata.costUsd`; any other slot gets the request read whole. A plan without a
 * gemini slot is every door's chat (`serveChat`, response cache included). A request on the
 * same-vendor lane is not cached: it is said `x-gateway-cache: bypass` where the cache was on.
 */
export function serveGenerateContent(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GatewayDeps,
  target: GenerateTarget,
): Promise<FastifyReply> {
  const door = geminiChat(target);
  const address = resolveModelField(deps, target.model);
  const fields = readRelayFields(request.body);
  const whole = crossVendorReading(request.body, target, address, deps);
  const input: MessagesInput = {
    ...address,
    body: rawGeminiBodyOf(request) ?? Buffer.from(JSON.stringify(request.body)),
    headers: {},
    ...fields,
    crossVendor: () => whole().input,
    relayOf: (adapter) => adapter.geminiRelay,
  };
  if (!plansGeminiRelay(deps, input)) return serveChat(request, reply, deps, door);
  const start = {
    operation: target.stream ? 'chat_stream' : 'chat',
    frontDoor: 'gemini',
    task: address.task,
    metadata: undefined,
  } as const;
  return serveRun(request, reply, deps, start, async (run) => {
    const cache = deps.responseCache.policyFor(request.appName, address.task, request.headers[CACHE_HEADER]);
    if (cache !== undefined) {
      run.responseHeaders[CACHE_HEADER] = 'bypass';
      reply.header(CACHE_HEADER, 'bypass');
    }
    const context: AnswerContext = { requestId: String(request.id), receivedAt: run.receivedAt };
    const answer = target.stream
      ? await openMessagesStream(deps, input, run)
      : await runMessages(deps, input, run);
    await deliver(reply, deps, run, answer, target, whole, context);
  });
}

async function deliver(
  reply: FastifyReply,
  deps: GatewayDeps,
  run: Parameters<Parameters<typeof serveRun>[4]>[0],
  answer: MessagesAnswer | MessagesStream,
  target: GenerateTarget,
  whole: () => { request: GeminiRequest; input: ChatInput },
  context: AnswerContext,
): Promise<void> {
  const door = geminiChat(target);
  if ('events' in answer || 'stream' in answer) {
    const frames =
      'events' in answer
        ? toRelayedChunks(answer.events, target)
        : door.frames(answer.stream, whole().request, context);
    const request = 'events' in answer ? undefined : whole().request;
    const headers = { ...run.responseHeaders, ...door.headers(context, request) };
    await writeEventStream(reply, frames, deps.config.streamKeepAliveMs, headers, door.keepAlive);
    return;
  }
  if (answer.lane === 'relay') {
    reply.headers(door.headers(context));
    sendAnswer(reply, run, {
      headers: { [COST_HEADER]: formatUsd(answer.usage.estimatedCost) },
      body: answer.text,
      contentType: JSON_TEXT,
    });
    return;
  }
  reply.headers(door.headers(context, whole().request));
  sendAnswer(reply, run, door.answer(answer.answer, whole().request, context));
}

/** Whether the request's plan holds a slot whose adapter relays Gemini's body; an unplannable one says no. */
function plansGeminiRelay(deps: GatewayDeps, input: MessagesInput): boolean {
  try {
    const candidates = planOrFail(deps, {
      operation: 'chat',
      provider: input.provider,
      model: input.model,
      task: input.task,
      tools: input.tools,
    });
    return candidates.some(
      (candidate) => deps.registry.adapter(candidate.provider).geminiRelay !== undefined,
    );
  } catch {
    return false;
  }
}

/**
 * The body read whole for another vendor, once, on first need (an attempt that falls over from a
 * gemini slot): the door's reading, its model resolved, the tools validated. A structured-output
 * request goes on as a chat there (its schema is Google's to enforce on the gemini slot). Its
 * refusal is kept and thrown again to whoever asks next.
 */
function crossVendorReading(
  body: unknown,
  target: GenerateTarget,
  address: ReturnType<typeof resolveModelField>,
  deps: GatewayDeps,
): () => { request: GeminiRequest; input: ChatInput } {
  let outcome:
    | { ok: true; request: GeminiRequest; input: ChatInput }
    | { ok: false; error: unknown }
    | undefined;
  return () => {
    if (outcome === undefined) {
      try {
        const request = readGeminiRequest(body, target.model, target.stream, target.sse);
        const read =
          request.use === 'chat'
            ? request.input
            : { messages: request.input.messages, temperature: request.input.temperature };
        const input: ChatInput = { ...read, ...address };
        validateToolRequest(input, deps.schemas);
        outcome = { ok: true, request, input };
      } catch (error) {
        outcome = { ok: false, error };
      }
    }
    if (!outcome.ok) throw outcome.error;
    return outcome;
  };
}
