import { budgetForEffort } from '../../domain/content-parts.ts';
import type { ChatCall, JsonSchemaFormat, ToolChoice, ToolDefinition } from '../provider.ts';
import { toAnthropicThinking } from './anthropic-content-parts.ts';
import { type AnthropicMessage, toAnthropicTurns } from './anthropic-turns.ts';

export { type AnthropicMessage, FILLER_USER_TURN } from './anthropic-turns.ts';

/** The Messages API request body this adapter sends (POST /v1/messages). */
export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: string;
  temperature?: number;
  stream?: true;
  stop_sequences?: string[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  thinking?: { type: 'enabled'; budget_tokens: number };
}

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

export type AnthropicToolChoice = { type: 'auto' | 'any' | 'none' } | { type: 'tool'; name: string };

/**
 * How structured output was asked for, so the answer can be read back: the forced tool's name,
 * and whether the caller's schema was wrapped in `{value: …}` because its root is not an object.
 */
export interface JsonToolPlan {
  name: string;
  wrapped: boolean;
}

export interface TranslatedRequest {
  body: AnthropicRequestBody;
  jsonTool: JsonToolPlan | undefined;
}

export interface TranslateOptions {
  /** The slot's cap when the caller gives none: Anthropic requires `max_tokens`. */
  defaultMaxTokens: number;
  stream: boolean;
}

/** The wrapper property holding a non-object schema's value (tool inputs must be objects). */
export const WRAPPED_VALUE_KEY = 'value';

const TOOL_NAME_FALLBACK = 'json_output';
const ANTHROPIC_MAX_TEMPERATURE = 1;

/**
 * Translates a gateway chat call to the Messages API.
 *
 * - System messages become the top-level `system` string, joined in order with blank lines.
 * - The rest become `messages` as toAnthropicTurns describes (alternating turns, tool_use and
 *   tool_result blocks).
 * - `tools` become Anthropic tools (`input_schema` is the parameters schema) and `toolChoice` its
 *   `tool_choice`: `required` is `any`, a named tool is `{type: 'tool', name}`; `stop` is
 *   `stop_sequences`.
 * - Structured output (`jsonSchema`) forces a tool of its own (see forcedTool). The caller's tools
 *   are still declared, so the conversation's earlier tool_use blocks stay valid, but the forced
 *   tool's `tool_choice` wins: an answer with a schema is an answer, not a call.
 */
export function toAnthropicRequest(call: ChatCall, options: TranslateOptions): TranslatedRequest {
  const system = call.messages
    .filter((message) => message.role === 'system')
    .map((message) => message.content)
    .filter((content) => content.trim() !== '');
  const body: AnthropicRequestBody = {
    model: call.model,
    max_tokens: Math.max(1, Math.floor(call.maxTokens ?? options.defaultMaxTokens)),
    messages: toAnthropicTurns(call.messages),
  };
  if (system.length > 0) body.system = system.join('\n\n');
  if (call.temperature !== undefined && Number.isFinite(call.temperature)) {
    // The gateway clamps to capabilities.maxTemperature already; out-of-range values are a 400 upstream.
    body.temperature = Math.min(ANTHROPIC_MAX_TEMPERATURE, Math.max(0, call.temperature));
  }
  if (options.stream) body.stream = true;
  if (call.stop !== undefined && call.stop.length > 0) body.stop_sequences = [...call.stop];
  // An empty list is not sent, nor a choice without tools to choose from.
  if (call.tools !== undefined && call.tools.length > 0) {
    body.tools = call.tools.map(toAnthropicTool);
    if (call.toolChoice !== undefined) body.tool_choice = toAnthropicToolChoice(call.toolChoice);
  }
  let jsonTool: JsonToolPlan | undefined;
  if (call.jsonSchema !== undefined) {
    const forced = forcedTool(call.jsonSchema);
    body.tools = [...(body.tools ?? []), forced.tool];
    body.tool_choice = { type: 'tool', name: forced.tool.name };
    jsonTool = forced.plan;
  }
  const thinking = thinkingFor(call, body);
  if (thinking !== undefined) {
    body.thinking = thinking;
    // Anthropic takes no temperature but 1 while thinking.
    delete body.temperature;
  }
  return { body, jsonTool };
}

/** Anthropic's smallest thinking budget. */
const MIN_THINKING_BUDGET = 1024;

/**
 * The request's reasoning as Anthropic's `thinking` (the client's budget, else the effort's, CONTRACT
 * 5.9), where Anthropic would take it: not with a forced tool (`tool_choice` any or tool, which
 * structured output uses), a budget below `max_tokens` and at least 1,024, and not in a tool loop
 * whose last assistant turn carries no thinking block of Anthropic's (Anthropic refuses that turn
 * once thinking is on; a turn that came through another vendor has none). Left out otherwise: the
 * answer is the same in shape, without the thinking.
 */
function thinkingFor(call: ChatCall, body: AnthropicRequestBody): AnthropicRequestBody['thinking'] {
  if (call.reasoning === undefined) return undefined;
  const forced = body.tool_choice?.type === 'any' || body.tool_choice?.type === 'tool';
  if (forced) return undefined;
  const budget = Math.min(
    call.reasoning.budgetTokens ?? budgetForEffort(call.reasoning.effort),
    body.max_tokens - 1,
  );
  if (budget < MIN_THINKING_BUDGET) return undefined;
  const lastAssistant = call.messages.findLast((message) => message.role === 'assistant');
  if (lastAssistant?.toolCalls !== undefined && lastAssistant.toolCalls.length > 0) {
    if (toAnthropicThinking(lastAssistant.parts).length === 0) return undefined;
  }
  return { type: 'enabled', budget_tokens: budget };
}

function toAnthropicTool(tool: ToolDefinition): AnthropicTool {
  const out: AnthropicTool = { name: tool.name, input_schema: tool.parameters };
  if (tool.description !== undefined) out.description = tool.description;
  return out;
}

export function toAnthropicToolChoice(choice: ToolChoice): AnthropicToolChoice {
  if (typeof choice !== 'string') return { type: 'tool', name: choice.name };
  return { type: choice === 'required' ? 'any' : choice };
}

/**
 * Structured output through a forced tool: the schema is the tool's `input_schema` and
 * `tool_choice` makes the model call it, so its `input` is the answer.
 *
 * Anthropic's native JSON outputs (`output_config.format`, now GA; formerly the beta
 * `output_format` behind `structured-outputs-2025-11-13`) exist, but only on recent models, and reject
 * schemas the gateway accepts (numeric and string bounds, recursion, objects without
 * `additionalProperties: false`). A forced tool works on every Messages model with any schema;
 * the gateway validates the answer afterwards and re-asks when it does not conform.
 *
 * `input_schema` must be an object schema without `anyOf`/`oneOf`/`allOf` at its root, so any
 * other schema is wrapped as the `value` property of one. Its `$defs`/`definitions` move up to
 * the wrapper so local `#/$defs/…` references still resolve (a bare `#` reference would not).
 */
function forcedTool(format: JsonSchemaFormat): { tool: AnthropicTool; plan: JsonToolPlan } {
  const name = toolName(format.name);
  const wrapped = !isPlainObjectSchema(format.schema);
  const description = wrapped
    ? `Return your answer by calling this tool. Its "${WRAPPED_VALUE_KEY}" must conform to the JSON Schema "${format.name}".`
    : `Return your answer by calling this tool. Its input must conform to the JSON Schema "${format.name}".`;
  return {
    tool: { name, description, input_schema: wrapped ? wrapSchema(format.schema) : format.schema },
    plan: { name, wrapped },
  };
}

/** Tool names must match ^[a-zA-Z0-9_-]{1,64}$. */
export function toolName(schemaName: string): string {
  const name = schemaName.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return name === '' ? TOOL_NAME_FALLBACK : name;
}

function isPlainObjectSchema(schema: Record<string, unknown>): boolean {
  return schema['type'] === 'object' && !('anyOf' in schema || 'oneOf' in schema || 'allOf' in schema);
}

function wrapSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $defs, definitions, $schema, ...inner } = schema;
  const wrapper: Record<string, unknown> = {
    type: 'object',
    properties: { [WRAPPED_VALUE_KEY]: inner },
    required: [WRAPPED_VALUE_KEY],
  };
  if ($schema !== undefined) wrapper['$schema'] = $schema;
  if ($defs !== undefined) wrapper['$defs'] = $defs;
  if (definitions !== undefined) wrapper['definitions'] = definitions;
  return wrapper;
}
