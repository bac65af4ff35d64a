import { ApiError, type FieldIssue } from '../../../platform/errors.ts';
import { buildReaskPrompt, buildSchemaInstruction, parseModelOutput } from '../../domain/json-output.ts';
import { mediaTokens } from '../../domain/media-tokens.ts';
import type { ChatMessage } from '../../domain/messages.ts';
import type { ResponseUsage } from '../../domain/usage.ts';
import type { JsonInput } from '../../domain/use-case-inputs.ts';
import type { CompiledSchema } from '../../json/schema-compiler.ts';
import type { GatewayDeps } from '../gateway-deps.ts';
import type { RequestRun } from '../run/request-run.ts';
import { estimateChatUsage, messageTexts, toChatCall } from './run-chat.ts';

export interface JsonAnswer {
  id: string;
  provider: string;
  model: string;
  data: unknown;
  raw: { role: 'assistant'; content: string };
  usage: ResponseUsage;
  latencyMs: number;
}

interface JsonWork {
  input: JsonInput;
  schema: CompiledSchema;
  maxAttempts: number;
}

/**
 * POST /v1/json: asks for output conforming to the caller's schema (natively where the upstream
 * can), parses and validates it, and re-asks with the validation errors a bounded number of
 * times. Usage and cost add up over every call. `data` is returned only when it validates.
 */
export async function runJson(deps: GatewayDeps, input: JsonInput, run: RequestRun): Promise<JsonAnswer> {
  return runPlannedJson(deps, input, run, planJson(deps, input, run));
}

/**
 * Compiles the request's schema (the 400 for one the gateway refuses comes first) and plans its
 * candidates: what the response cache needs before it can look the request up.
 */
export function planJson(deps: GatewayDeps, input: JsonInput, run: RequestRun): CompiledSchema {
  const compiled = deps.schemas.compile(input.schema);
  run.plan({ operation: 'json', provider: input.provider, model: input.model, task: input.task });
  return compiled;
}

/** A planned request (`planJson`): admitted, then asked and re-asked until its output validates. */
export async function runPlannedJson(
  deps: GatewayDeps,
  input: JsonInput,
  run: RequestRun,
  schema: CompiledSchema,
): Promise<JsonAnswer> {
  await run.admit({
    texts: () => jsonInputTexts(input),
    mediaTokens: () => mediaTokens(input.messages),
    maxOutputTokens: undefined,
  });
  const work: JsonWork = { input, schema, maxAttempts: deps.config.json.maxAttempts };
  return run.perform(answerJson, work);
}

/** The request's texts as the limits count them: the messages and the schema. */
export function jsonInputTexts(input: JsonInput): string[] {
  return [...messageTexts(input.messages), JSON.stringify(input.schema)];
}

async function answerJson(run: RequestRun, { input, schema, maxAttempts }: JsonWork): Promise<JsonAnswer> {
  const format = { name: input.schemaName ?? 'output', schema: input.schema };
  let candidates = run.candidates;
  let conversation: readonly ChatMessage[] = input.messages;
  let issues: FieldIssue[] = [];
  for (let round = 0; round < maxAttempts; round++) {
    const success = await run.call(candidates, (adapter, candidate, context) => {
      const messages = adapter.capabilities.nativeJsonSchema
        ? conversation
        : [
            { role: 'system' as const, content: buildSchemaInstruction(format.name, format.schema) },
            ...conversation,
          ];
      const request = { messages, temperature: input.temperature };
      return adapter.chat(toChatCall(request, candidate, adapter.capabilities, format), context);
    });
    // Re-asks continue the conversation with the provider that answered.
    candidates = [success.candidate];
    const result = success.value;
    run.markAnswered();
    const sent = conversation;
    await run.account({
      provider: success.candidate.provider,
      adapter: success.adapter,
      model: result.model,
      reported: result.usage,
      estimate: (tokenizer) => estimateChatUsage(tokenizer, sent, result.content),
      startedAt: success.startedAt,
      finishReason: result.finishReason,
    });
    const parsed = parseModelOutput(result.content);
    issues = parsed.ok ? schema.validate(parsed.value) : parsed.issues;
    if (parsed.ok && issues.length === 0) {
      return {
        id: run.id,
        provider: success.candidate.provider,
        model: result.model,
        data: parsed.value,
        raw: { role: 'assistant', content: result.content },
        usage: run.usage(),
        latencyMs: run.elapsedMs(),
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
}
