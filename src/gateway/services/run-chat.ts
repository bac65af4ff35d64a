import type { ChatBody } from '../http/schemas.ts';
import { admitRequest, messageTexts } from './admit-request.ts';
import { estimateChatUsage, toChatCall } from './chat-call.ts';
import { elapsedMs, scopeUsage, withRecording } from './finish-request.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import { planOrFail } from './plan-or-fail.ts';
import type { RequestScope } from './request-scope.ts';
import { accountAnsweredCall } from './usage-accounting.ts';

export interface ChatAnswer {
  id: string;
  provider: string;
  model: string;
  message: { role: 'assistant'; content: string };
  usage: ReturnType<typeof scopeUsage>;
  latencyMs: number;
}

/** POST /v1/chat without streaming: route, call with retries and fallback, account, record. */
export async function runChat(deps: GatewayDeps, body: ChatBody, scope: RequestScope): Promise<ChatAnswer> {
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
  return withRecording(deps, scope, async (outcome) => {
    const success = await deps.caller.call(candidates, scope, (adapter, candidate, context) =>
      adapter.chat(toChatCall(body, candidate, adapter.capabilities), context),
    );
    scope.upstreamFirstByteAt = scope.upstreamDoneAt = deps.clock.monotonic();
    const result = success.value;
    await accountAnsweredCall(
      deps,
      scope,
      {
        provider: success.candidate.provider,
        adapter: success.adapter,
        model: result.model,
        reported: result.usage,
        estimate: () => estimateChatUsage(body.messages, result.content),
        startedAt: success.startedAt,
      },
      outcome,
    );
    return {
      id: scope.id,
      provider: success.candidate.provider,
      model: result.model,
      message: { role: 'assistant', content: result.content },
      usage: scopeUsage(scope),
      latencyMs: elapsedMs(deps, scope),
    };
  });
}
