import type { ChatCall, ChatMessage, JsonSchemaFormat } from '../provider.ts';

/** The Messages API request body this adapter sends (POST /v1/messages). */
export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: string;
  temperature?: number;
  stream?: true;
  tools?: AnthropicTool[];
  tool_choice?: { type: 'tool'; name: string };
}

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

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

/**
 * The user turn inserted where Anthropic's turn rules need one and the caller gave none: before a
 * leading assistant message, after a trailing one, or when only system messages were sent.
 */
export const FILLER_USER_TURN = '(continue)';

/** The wrapper property holding a non-object schema's value (tool inputs must be objects). */
export const WRAPPED_VALUE_KEY = 'value';

const TOOL_NAME_FALLBACK = 'json_output';
const ANTHROPIC_MAX_TEMPERATURE = 1;

/**
 * Translates a gateway chat call to the Messages API.
 *
 * - System messages become the top-level `system` string, joined in order with blank lines.
 * - The rest become `messages`, which Anthropic wants alternating and starting with `user`:
 *   consecutive same-role messages are merged (blank line between), empty ones are dropped, a
 *   filler user turn goes before a leading assistant message, and one goes after a trailing
 *   assistant message. Anthropic would treat a trailing assistant turn as a prefill the model
 *   continues (and rejects one that ends in whitespace); every other upstream answers with a new
 *   message, so the gateway keeps that meaning here.
 * - `tool` messages (results of tools the caller ran) become user text, `Tool result (name):`
 *   first, since this gateway sends no tool definitions the result could be paired with.
 * - `name` has no field in Anthropic's messages: on a user message it is kept as a `name: `
 *   prefix, so several speakers stay distinguishable; on an assistant message it is dropped, as a
 *   prefix there would teach the model to start its own replies with a name.
 */
export function toAnthropicRequest(call: ChatCall, options: TranslateOptions): TranslatedRequest {
  const system = call.messages
    .filter((message) => message.role === 'system')
    .map((message) => message.content)
    .filter((content) => content.trim() !== '');
  const body: AnthropicRequestBody = {
    model: call.model,
    max_tokens: Math.max(1, Math.floor(call.maxTokens ?? options.defaultMaxTokens)),
    messages: toTurns(call.messages),
  };
  if (system.length > 0) body.system = system.join('\n\n');
  if (call.temperature !== undefined && Number.isFinite(call.temperature)) {
    // The gateway clamps to capabilities.maxTemperature already; out-of-range values are a 400 upstream.
    body.temperature = Math.min(ANTHROPIC_MAX_TEMPERATURE, Math.max(0, call.temperature));
  }
  if (options.stream) body.stream = true;
  let jsonTool: JsonToolPlan | undefined;
  if (call.jsonSchema !== undefined) {
    const forced = forcedTool(call.jsonSchema);
    body.tools = [forced.tool];
    body.tool_choice = { type: 'tool', name: forced.tool.name };
    jsonTool = forced.plan;
  }
  return { body, jsonTool };
}

function toTurns(messages: readonly ChatMessage[]): AnthropicMessage[] {
  const turns: AnthropicMessage[] = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    // Anthropic rejects empty content on any turn but a final assistant one; an empty message says nothing.
    if (message.content.trim() === '') continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const content = turnText(message);
    const previous = turns.at(-1);
    if (previous?.role === role) previous.content = `${previous.content}\n\n${content}`;
    else turns.push({ role, content });
  }
  if (turns[0]?.role !== 'user') turns.unshift({ role: 'user', content: FILLER_USER_TURN });
  if (turns.at(-1)?.role === 'assistant') turns.push({ role: 'user', content: FILLER_USER_TURN });
  return turns;
}

function turnText(message: ChatMessage): string {
  const name = message.name?.trim();
  if (message.role === 'tool') {
    return `${name ? `Tool result (${name})` : 'Tool result'}:\n${message.content}`;
  }
  if (message.role === 'user' && name) return `${name}: ${message.content}`;
  return message.content;
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
