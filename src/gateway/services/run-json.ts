import { ApiError, type FieldIssue } from '../../platform/errors.ts';
import { buildReaskPrompt, buildSchemaInstruction, parseModelOutput } from '../domain/json-output.ts';
import type { PlannedCandidate } from '../domain/routing.ts';
import type { JsonBody } from '../http/schemas.ts';
import type { ChatMessage } from '../providers/provider.ts';
import { admitRequest, messageTexts } from './admit-request.ts';
import { estimateChatUsage, toChatCall } from './chat-call.ts';
import { elapsedMs, scopeUsage, withRecording } from './finish-request.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import { planOrFail } from './plan-or-fail.ts';
import type { RequestScope } from './request-scope.ts';
import { accountAnsweredCall } from './usage-accounting.ts';

export interface JsonAnswer {
  id: string;
  provider: string;
  model: string;
  data: unknown;
  raw: { role: 'assistant'; content: string };
  usage: ReturnType<typeof scopeUsage>;
  latencyMs: number;
}

/**
 * POST /v1/json: asks for output conforming to the caller's schema (natively where the upstream
 * can), parses and validates it, and re-asks with the validation errors a bounded number of
 * times. Usage and cost add up over every call. `data` is returned only when it validates.
 */
export async function runJson(deps: GatewayDeps, body: JsonBody, scope: RequestScope): Promise<JsonAnswer> {
  const compiled = deps.schemas.compile(body.schema);
  const format = { name: body.schemaName ?? 'output', schema: body.schema };
  let candidates: PlannedCandidate[] = planOrFail(deps, {
    operation: 'json',
    provider: body.provider,
    model: body.model,
    task: body.task,
  });
  const maxAttempts = deps.config.json.maxAttempts;
  await admitRequest(deps, scope, candidates, {
    texts: () => [...messageTexts(body.messages), JSON.stringify(body.schema)],
    maxOutputTokens: undefined,
  });
  return withRecording(deps, scope, async (outcome) => {
    let conversation: ChatMessage[] = body.messages;
    let issues: FieldIssue[] = [];
    for (let round = 0; round < maxAttempts; round++) {
      const success = await deps.caller.call(candidates, scope, (adapter, candidate, context) => {
        const messages = adapter.capabilities.nativeJsonSchema
          ? conversation
          : [
              { role: 'system' as const, content: buildSchemaInstruction(format.name, format.schema) },
              ...conversation,
            ];
        const request = { messages, temperature: body.temperature };
        return adapter.chat(toChatCall(request, candidate, adapter.capabilities, format), context);
      });
      // Re-asks continue the conversation with the provider that answered.
      candidates = [success.candidate];
      const result = success.value;
      scope.upstreamFirstByteAt ??= deps.clock.monotonic();
      scope.upstreamDoneAt = deps.clock.monotonic();
      const sent = conversation;
      await accountAnsweredCall(
        deps,
        scope,
        {
          provider: success.candidate.provider,
          adapter: success.adapter,
          model: result.model,
          reported: result.usage,
          estimate: () => estimateChatUsage(sent, result.content),
          startedAt: success.startedAt,
        },
        outcome,
      );
      const parsed = parseModelOutput(result.content);
      issues = parsed.ok ? compiled.validate(parsed.value) : parsed.issues;
      if (parsed.ok && issues.length === 0) {
        return {
          id: scope.id,
          provider: success.candidate.provider,
          model: result.model,
          data: parsed.value,
          raw: { role: 'assistant', content: result.content },
          usage: scopeUsage(scope),
          latencyMs: elapsedMs(deps, scope),
        };
      }
      conversation = [
        ...conversation,
        { role: 'assistant', content: result.content },
        { role: 'user', content: buildReaskPrompt(issues) },
      ];
    }
    throw new ApiError(
      'json_validation_failed',
      `the model did not produce output satisfying the schema in ${maxAttempts} attempt${maxAttempts === 1 ? '' : 's'}`,
      { details: issues },
    );
  });
}
