import { ApiError, type ErrorEnvelope } from '../../platform/errors.ts';
import type { ChatBody } from '../http/schemas.ts';
import type { ChatStreamEvent, ReportedUsage } from '../providers/provider.ts';
import { isProviderError } from '../providers/provider-error.ts';
import { admitRequest, messageTexts } from './admit-request.ts';
import { estimateChatUsage, toChatCall } from './chat-call.ts';
import { ClientClosedError } from './client-closed-error.ts';
import { elapsedMs, type Outcome, recordRequest, scopeUsage } from './finish-request.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import { planOrFail } from './plan-or-fail.ts';
import type { RequestScope } from './request-scope.ts';
import type { ChatAnswer } from './run-chat.ts';
import { toGatewayError } from './upstream-error-mapping.ts';
import { accountAnsweredCall } from './usage-accounting.ts';

export type StreamEvent =
  | { event: 'delta'; data: { content: string } }
  | { event: 'done'; data: ChatAnswer }
  | { event: 'error'; data: ErrorEnvelope };

export interface ChatStream {
  start: { id: string; provider: string; model: string };
  /** Deltas as the upstream sends them, then exactly one `done` or `error`. */
  events: AsyncGenerator<StreamEvent, void, undefined>;
}

/**
 * POST /v1/chat with `stream: true`. Resolves once an upstream has sent its first event, so
 * retries and fallback happen before any byte reaches the client; rejects with the gateway error
 * when no candidate answers. After that, failures end the stream with an `error` event.
 */
export async function openChatStream(
  deps: GatewayDeps,
  body: ChatBody,
  scope: RequestScope,
): Promise<ChatStream> {
  const candidates = planOrFail(deps, {
    operation: 'chat',
    provider: body.provider,
    model: body.model,
    task: body.task,
  });
  await admitRequest(deps, scope, candidates, {
    texts: () => messageTexts(body.messages),
    maxOutputTokens: body.maxTokens,
  });
  const outcome: Outcome = { provider: null, model: null, priceSource: null };
  let success: Awaited<ReturnType<typeof callFirstEvent>>;
  try {
    success = await callFirstEvent(deps, body, scope, candidates);
  } catch (error) {
    outcome.error = error;
    recordRequest(deps, scope, outcome, elapsedMs(deps, scope));
    throw error;
  }
  scope.upstreamFirstByteAt = deps.clock.monotonic();
  const { iterator, first } = success.value;
  let model = success.candidate.model;
  let pending: ChatStreamEvent | undefined = first.done ? undefined : first.value;
  // Adapters that know the answering model say so first; the start event carries it.
  if (pending?.type === 'model') {
    model = pending.model;
    pending = undefined;
  }
  const start = { id: scope.id, provider: success.candidate.provider, model };

  async function* events(): AsyncGenerator<StreamEvent, void, undefined> {
    let content = '';
    let usage: ReportedUsage | undefined;
    let failure: unknown;
    try {
      let next: IteratorResult<ChatStreamEvent> | undefined =
        pending === undefined ? undefined : { done: false, value: pending };
      if (first.done) next = first;
      for (;;) {
        next ??= await iterator.next();
        if (next.done) break;
        const event = next.value;
        next = undefined;
        if (event.type === 'delta') {
          if (event.content === '') continue;
          content += event.content;
          yield { event: 'delta', data: { content: event.content } };
        } else if (event.type === 'usage') usage = event.usage;
        else if (event.type === 'model') model = event.model;
      }
    } catch (error) {
      failure = scope.signal.aborted ? new ClientClosedError() : error;
    } finally {
      if (failure === undefined && scope.signal.aborted) failure = new ClientClosedError();
      scope.upstreamDoneAt = deps.clock.monotonic();
      await accountAnsweredCall(
        deps,
        scope,
        {
          provider: start.provider,
          adapter: success.adapter,
          model,
          // A stream cut short has no trustworthy usage: estimate what was seen.
          reported: failure === undefined ? usage : undefined,
          estimate: () => estimateChatUsage(body.messages, content),
          startedAt: success.startedAt,
          outcome: failure === undefined ? 'ok' : 'stream_failed',
        },
        outcome,
      );
      if (failure !== undefined) {
        outcome.error =
          failure instanceof ClientClosedError ? failure : toMidStreamError(failure, start.provider);
      }
      recordRequest(deps, scope, outcome, elapsedMs(deps, scope));
      await iterator.return?.();
    }
    if (outcome.error instanceof ApiError) {
      yield { event: 'error', data: outcome.error.toEnvelope() };
      return;
    }
    if (outcome.error !== undefined) return;
    yield {
      event: 'done',
      data: {
        id: scope.id,
        provider: start.provider,
        model,
        message: { role: 'assistant', content },
        usage: scopeUsage(scope),
        latencyMs: elapsedMs(deps, scope),
      },
    };
  }

  return { start, events: events() };
}

async function callFirstEvent(
  deps: GatewayDeps,
  body: ChatBody,
  scope: RequestScope,
  candidates: ReturnType<typeof planOrFail>,
) {
  return deps.caller.call(candidates, scope, async (adapter, candidate, context) => {
    const iterator = adapter
      .streamChat(toChatCall(body, candidate, adapter.capabilities), context)
      [Symbol.asyncIterator]();
    const first = await iterator.next();
    return { iterator, first };
  });
}

function toMidStreamError(error: unknown, provider: string): ApiError {
  if (isProviderError(error)) {
    const mapped = toGatewayError(error, [
      { provider, model: '', status: error.status ?? null, failure: error.failure },
    ]);
    if (mapped instanceof ApiError) return mapped;
  }
  return error instanceof ApiError
    ? error
    : new ApiError('upstream_error', `${provider} failed during the stream`, { cause: error });
}
