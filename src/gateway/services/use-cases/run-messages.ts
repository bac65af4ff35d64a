import type { ProviderKind, ProviderSlot } from '../../../config/config-types.ts';
import type { RelayWire } from '../../domain/messages.ts';
import type { PlannedCandidate } from '../../domain/routing.ts';
import type { ResponseUsage } from '../../domain/usage.ts';
import type { ChatInput } from '../../domain/use-case-inputs.ts';
import type {
  MessagesRelay,
  MessagesRelayCall,
  RelayedEvent,
  RelayedMessage,
} from '../../providers/messages-relay.ts';
import {
  type CallContext,
  type ChatResult,
  type ChatStreamEvent,
  messagesRelayOf,
  type ProviderAdapter,
} from '../../providers/provider.ts';
import type { GatewayDeps } from '../gateway-deps.ts';
import { countOrGuess } from '../run/count-or-guess.ts';
import { type RelayOut, RelayStream } from '../run/relay-stream.ts';
import type { RequestRun } from '../run/request-run.ts';
import { UpstreamStream } from '../run/upstream-stream.ts';
import type { CallSuccess } from '../upstream/upstream-caller.ts';
import { type ChatAnswer, chatAnswerOf, toChatCall } from './run-chat.ts';
import type { ChatStream } from './run-chat-stream.ts';

/** The header naming what a cloud's wire format left out of a relayed request (CONTRACT 6.9). */
export const IGNORED_FIELDS_HEADER = 'x-gateway-ignored-fields';

/**
 * A `POST /v1/messages` request, read lightly by the door (CONTRACT 5.2): what the gateway needs
 * to route, limit and account it, the client's body as it came for an `anthropic` slot, and the
 * cross-vendor reading of it for any other slot, made on first need.
 */
export interface MessagesInput {
  /** The slot kinds whose adapters take the lane (the door's description says which). */
  laneKinds: readonly ProviderKind[];
  /** The lane's wire format, for a kind that relays two (Vertex): Anthropic's Messages when absent. */
  laneWire?: RelayWire | undefined;
  provider?: ProviderSlot | undefined;
  model?: string | undefined;
  task?: string | undefined;
  /** The client's body (its bytes) and the headers forwarded with it. */
  body: Buffer;
  headers: Readonly<Record<string, string>>;
  maxTokens: number;
  /** Whether the body has tools: planning skips slots that cannot call them. */
  tools: boolean;
  /** The request's texts (not its images' bytes), for the limits' guess and an estimate. */
  texts: readonly string[];
  /**
   * The body as the gateway's chat input, for an attempt on a slot of another kind; throws the
   * door's 400 when the body holds what another vendor cannot be given. Called at most once.
   */
  crossVendor(): ChatInput;
}

/** A whole answer: the upstream's own Message (same-vendor lane), or the gateway's (cross-vendor). */
export type MessagesAnswer =
  | { lane: 'relay'; text: string; usage: ResponseUsage; provider: string; model: string }
  | { lane: 'chat'; answer: ChatAnswer };

/** A stream: the upstream's own events, or the gateway's chat stream. */
export type MessagesStream =
  | { lane: 'relay'; events: AsyncGenerator<RelayOut, void, undefined>; provider: string }
  | { lane: 'chat'; stream: ChatStream };

type Answered = { lane: 'relay'; result: RelayedMessage } | { lane: 'chat'; result: ChatResult };

type Opened =
  | { lane: 'relay'; iterator: AsyncIterator<RelayedEvent>; first: IteratorResult<RelayedEvent> }
  | { lane: 'chat'; iterator: AsyncIterator<ChatStreamEvent>; first: IteratorResult<ChatStreamEvent> };

/**
 * The Anthropic door's chat: planned, admitted and called like any chat, each attempt in the lane
 * of its slot: an `anthropic` slot gets the client's body as it wrote it (but `model`), and its
 * answer comes back unchanged; any other slot gets the cross-vendor reading, and its answer is the
 * gateway's. A body that no planned slot can take (no `anthropic` slot among them, and content
 * another vendor cannot be given) is refused before admission, as the door always refused it.
 */
export async function runMessages(
  deps: GatewayDeps,
  input: MessagesInput,
  run: RequestRun,
): Promise<MessagesAnswer> {
  await admitMessages(deps, input, run);
  return run.perform(answerMessages, input);
}

async function answerMessages(run: RequestRun, input: MessagesInput): Promise<MessagesAnswer> {
  const success = await run.call<Answered>(run.candidates, async (adapter, candidate, context) => {
    const relay = relayOf(adapter, input, candidate.model);
    if (relay !== undefined)
      return { lane: 'relay', result: await relay.message(relayCall(input, candidate), context) };
    const call = toChatCall(input.crossVendor(), candidate, adapter.capabilities);
    return { lane: 'chat', result: await adapter.chat(call, context) };
  });
  const answered = success.value;
  if (answered.lane === 'chat')
    return {
      lane: 'chat',
      answer: await chatAnswerOf(run, input.crossVendor(), { ...success, value: answered.result }),
    };
  run.markAnswered();
  const result = answered.result;
  sayIgnored(run, result.ignoredFields);
  const texts = input.texts;
  await run.account({
    provider: success.candidate.provider,
    adapter: success.adapter,
    model: result.model,
    reported: result.usage,
    estimate: async (tokenizer) => ({
      inputTokens: await countOrGuess(
        () => tokenizer.count(texts),
        () => texts,
      ),
      outputTokens: Math.ceil(result.text.length / 4),
    }),
    startedAt: success.startedAt,
    finishReason: result.finishReason,
  });
  const provider = success.candidate.provider;
  return { lane: 'relay', text: result.text, usage: run.usage(), provider, model: result.model };
}

/**
 * The streamed chat: resolves once an upstream sent its first event (retries and fallback happen
 * before any byte reaches the client), with the stream held by the run as openChatStream's is.
 */
export async function openMessagesStream(
  deps: GatewayDeps,
  input: MessagesInput,
  run: RequestRun,
): Promise<MessagesStream> {
  await admitMessages(deps, input, run);
  let success: CallSuccess<Opened>;
  try {
    success = await run.call<Opened>(run.candidates, (adapter, candidate, context) =>
      openFirstEvent(adapter, candidate, context, input),
    );
  } catch (error) {
    run.finish(error);
    throw error;
  }
  run.markFirstByte();
  const opened = success.value;
  if (opened.lane === 'chat') {
    const stream = new UpstreamStream(input.crossVendor(), run, { ...success, value: opened });
    run.hold(stream);
    return { lane: 'chat', stream: { start: stream.start, events: stream.events() } };
  }
  if (!opened.first.done) sayIgnored(run, opened.first.value.ignoredFields);
  const stream = new RelayStream(run, deps, { ...success, value: opened }, input.texts);
  run.hold(stream);
  return { lane: 'relay', events: stream.events(), provider: success.candidate.provider };
}

async function openFirstEvent(
  adapter: ProviderAdapter,
  candidate: PlannedCandidate,
  context: CallContext,
  input: MessagesInput,
): Promise<Opened> {
  const relay = relayOf(adapter, input, candidate.model);
  if (relay === undefined) {
    const call = toChatCall(input.crossVendor(), candidate, adapter.capabilities);
    const iterator = adapter.streamChat(call, context)[Symbol.asyncIterator]();
    return { lane: 'chat', iterator, first: await iterator.next() };
  }
  const iterator = relay.stream(relayCall(input, candidate), context)[Symbol.asyncIterator]();
  const first = await iterator.next();
  // An error before anything was relayed is a failed call: retried, or fallen over, like a status.
  if (!first.done && first.value.failure !== undefined) {
    await iterator.return?.();
    throw first.value.failure;
  }
  return { lane: 'relay', iterator, first };
}

/** Names to the client what the serving cloud left out (only the attempt that answered counts). */
function sayIgnored(run: RequestRun, ignored: readonly string[] | undefined): void {
  if (ignored !== undefined && ignored.length > 0)
    run.responseHeaders[IGNORED_FIELDS_HEADER] = ignored.join(',');
}

/** Plans the request's candidates (the response cache plans first: its key holds them). */
export function planMessages(input: MessagesInput, run: RequestRun): void {
  run.plan({
    operation: 'chat',
    provider: input.provider,
    model: input.model,
    task: input.task,
    tools: input.tools,
  });
}

function admitMessages(deps: GatewayDeps, input: MessagesInput, run: RequestRun): Promise<void> {
  planMessages(input, run);
  // No planned slot relays: the body must go to another vendor, and its refusal comes before admission.
  const relays = (candidate: PlannedCandidate) =>
    relayOf(deps.registry.adapter(candidate.provider), input, candidate.model) !== undefined;
  if (!run.candidates.some(relays)) input.crossVendor();
  return run.admit({ texts: input.texts, maxOutputTokens: input.maxTokens });
}

/** Whether an attempt on this adapter's slot takes the same-vendor lane. */
export function relayOf(
  adapter: ProviderAdapter,
  input: Pick<MessagesInput, 'laneKinds' | 'laneWire'>,
  model: string,
): MessagesRelay | undefined {
  return input.laneKinds.includes(adapter.kind) ? messagesRelayOf(adapter, model, input.laneWire) : undefined;
}

function relayCall(input: MessagesInput, candidate: PlannedCandidate): MessagesRelayCall {
  return { model: candidate.model, body: input.body, headers: input.headers };
}
