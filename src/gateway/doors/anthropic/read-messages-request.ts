import {
  budgetForEffort,
  effortForBudget,
  MediaTally,
  type ReasoningRequest,
} from '../../domain/content-parts.ts';
import type { ChatMessage, ToolDefinition } from '../../domain/messages.ts';
import type { ChatInput } from '../../domain/use-case-inputs.ts';
import type { DoorChatRequest } from '../chat-door.ts';
import {
  type FieldPath,
  invalidField,
  isObject,
  type JsonObject,
  missingField,
  optional,
  readArray,
  readBoolean,
  readInteger,
  readNonEmptyString,
  readNumberInRange,
  readObject,
} from '../request-fields.ts';
import { readMessages, readSystem } from './read-messages.ts';
import { readToolSelection } from './read-tools.ts';

/**
 * A `POST /v1/messages` body, read from `unknown` into the gateway's chat input. Anthropic's
 * required fields are required here too (`model`, `max_tokens`, `messages`). Fields that change
 * the answer and that the gateway cannot honour on every upstream are a 400 naming the field;
 * fields that do not change it (`metadata`, `service_tier`, `cache_control`, `speed`, …) are
 * ignored, as are fields this door does not know.
 */
export type MessagesRequest = DoorChatRequest & {
  use: 'chat';
  /** The `model` field as sent; the edge turns it into a slot, route or model. */
  model: string;
  /** Everything of the chat input but the addressing. */
  input: Omit<ChatInput, 'provider' | 'model' | 'task'>;
  /** `disable_parallel_tool_use`: keep only the answer's first tool call. */
  singleToolCall: boolean;
  /** Anthropic's `metadata` (`user_id`), kept in the gateway's records, never sent upstream. */
  metadata: JsonObject | undefined;
};

/** Longest `model` accepted; real names are far shorter. */
const MAX_MODEL_LENGTH = 256;

/**
 * Fields that would change the answer and that no upstream of the gateway is given: a 400 each,
 * with the reason. (`thinking` is read: each upstream gets it as its own reasoning setting.)
 */
const REFUSED_FIELDS: Record<string, string> = {
  top_p: 'nucleus sampling is not carried by this gateway; use temperature',
  top_k: 'top-k sampling is not carried by this gateway; use temperature',
  mcp_servers: 'remote MCP servers run inside Anthropic’s API; this gateway does not run them',
  container: 'containers belong to server tools, which this gateway does not run',
  output_format: 'structured output is served by the gateway’s native POST /v1/json',
};

export function readMessagesRequest(body: unknown): MessagesRequest {
  const root: FieldPath = [];
  const object = readObject(body, root);
  for (const [field, why] of Object.entries(REFUSED_FIELDS)) {
    if (Object.hasOwn(object, field) && object[field] !== null)
      throw invalidField([field], `not supported: ${why}`);
  }
  refuseOutputFormat(object.output_config);
  const model = readModel(object);
  requireField(object, 'max_tokens');
  const maxTokens = readInteger(object.max_tokens, ['max_tokens'], 1);
  const input: MessagesRequest['input'] = { messages: readConversation(object), maxTokens };
  const temperature = optional(object, 'temperature', root, (value, path) =>
    readNumberInRange(value, path, 0, 1),
  );
  if (temperature !== undefined) input.temperature = temperature;
  const stop = optional(object, 'stop_sequences', root, readStopSequences);
  if (stop !== undefined && stop.length > 0) input.stop = stop;
  const reasoning = optional(object, 'thinking', root, readThinking);
  if (reasoning !== undefined) input.reasoning = reasoning;

  const selection = readToolSelection(object.tools, object.tool_choice);
  if (selection.tools !== undefined && selection.tools.length > 0) input.tools = selection.tools;
  if (selection.toolChoice !== undefined && input.tools !== undefined)
    input.toolChoice = selection.toolChoice;

  return {
    use: 'chat',
    model,
    input,
    stream: optional(object, 'stream', root, readBoolean) ?? false,
    singleToolCall: selection.singleToolCall,
    metadata: isObject(object.metadata) ? object.metadata : undefined,
    session: { userId: isObject(object.metadata) ? object.metadata.user_id : undefined },
  };
}

/**
 * A `POST /v1/messages/count_tokens` body: the same conversation and tools as a message request
 * (read by the same rules, so a body that counts is a body that would be accepted), without
 * `max_tokens`.
 */
export function readCountTokensRequest(body: unknown): CountTokensRequest {
  const object = readObject(body, []);
  const model = readModel(object);
  const messages = readConversation(object);
  const selection = readToolSelection(object.tools, object.tool_choice);
  return { model, messages, tools: selection.tools ?? [] };
}

export interface CountTokensRequest {
  model: string;
  messages: ChatMessage[];
  tools: ToolDefinition[];
}

function requireField(object: JsonObject, field: string): void {
  if (!Object.hasOwn(object, field) || object[field] === null) throw missingField([], field);
}

function readModel(object: JsonObject): string {
  requireField(object, 'model');
  const model = readNonEmptyString(object.model, ['model']);
  if (model.length > MAX_MODEL_LENGTH)
    throw invalidField(['model'], `must be at most ${MAX_MODEL_LENGTH} characters`);
  return model;
}

/** `system` (when given) as the first message, then `messages`. */
function readConversation(object: JsonObject): ChatMessage[] {
  requireField(object, 'messages');
  const messages: ChatMessage[] = [];
  const system = optional(object, 'system', [], readSystem);
  if (system !== undefined) messages.push(system);
  messages.push(...readMessages(object.messages, ['messages'], new MediaTally()));
  return messages;
}

/** Anthropic's smallest thinking budget. */
const MIN_THINKING_BUDGET = 1024;

/**
 * `thinking`: `enabled` with `budget_tokens` (its effort by CONTRACT 5.2's thresholds, the budget
 * kept for an Anthropic upstream), `adaptive` (effort medium, CONTRACT 5.9), or `disabled`.
 * `display` only says whether Anthropic shows the thinking, which no other vendor returns.
 */
function readThinking(value: unknown, path: FieldPath): ReasoningRequest | undefined {
  const thinking = readObject(value, path);
  if (thinking.type === 'disabled') return undefined;
  if (thinking.type === 'adaptive') return { effort: 'medium', budgetTokens: budgetForEffort('medium') };
  if (thinking.type !== 'enabled')
    throw invalidField([...path, 'type'], "must be 'enabled', 'adaptive' or 'disabled'");
  const budget = readInteger(thinking.budget_tokens, [...path, 'budget_tokens'], MIN_THINKING_BUDGET);
  return { effort: effortForBudget(budget), budgetTokens: budget };
}

function readStopSequences(value: unknown, path: FieldPath): string[] {
  return readArray(value, path).map((item, index) => readNonEmptyString(item, [...path, index]));
}

/** `output_config.effort` only tunes the model's effort and is ignored; `format` would change the answer. */
function refuseOutputFormat(config: unknown): void {
  if (!isObject(config) || config.format === undefined || config.format === null) return;
  throw invalidField(['output_config', 'format'], `not supported: ${REFUSED_FIELDS.output_format}`);
}
