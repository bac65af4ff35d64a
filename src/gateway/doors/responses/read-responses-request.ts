import type { ChatInput, JsonInput } from '../../domain/use-case-inputs.ts';
import type { DoorChatRequest } from '../chat-door.ts';
import { JSON_OBJECT_SCHEMA } from '../json-object-schema.ts';
import { refuseField } from '../openai-refusal.ts';
import { isObject, type JsonObject } from '../request-fields.ts';
import { readResponseInput } from './read-response-items.ts';
import { readReasoning } from './read-response-parts.ts';
import { type ReadTools, readResponseTools, readToolChoice } from './read-response-tools.ts';

/**
 * A `POST /v1/responses` body in the gateway's words (CONTRACT 5.4), and what its answer echoes:
 * the Response object repeats the request's settings, lists its tools, and names its calls by
 * the tools the client sent (custom and namespaced ones told apart from plain functions).
 */
export type ResponsesRequest = DoorChatRequest & {
  model: string;
  tools: ReadTools;
  /** Where each message of the input came from, for the pointer of a tool fault. */
  sources: readonly string[];
  /** The request's settings as the Response object repeats them. */
  echo: ResponseEcho;
  /** `include: ["reasoning.encrypted_content"]`. */
  includeEncryptedReasoning: boolean;
  store: boolean;
  /** The body as sent: its `input` and `tools`, kept with a stored response. */
  body: JsonObject;
};

/** The request's settings that every ResponseResource carries. */
export interface ResponseEcho {
  instructions: string | null;
  previous_response_id: string | null;
  tools: unknown[];
  tool_choice: unknown;
  truncation: 'auto' | 'disabled';
  parallel_tool_calls: boolean;
  text: { format: unknown; verbosity?: unknown };
  top_p: number;
  temperature: number;
  reasoning: { effort: unknown; summary: unknown };
  max_output_tokens: number | null;
  max_tool_calls: number | null;
  store: boolean;
  service_tier: string;
  metadata: Record<string, unknown>;
  safety_identifier: string | null;
  prompt_cache_key: string | null;
  user: string | null;
}

const MAX_MODEL_LENGTH = 256;
const MAX_METADATA_KEYS = 16;
const MAX_METADATA_CHARS = 16 * 1024;

/** Sampling settings the gateway carries only at their neutral value, as on Chat Completions. */
const NEUTRAL: Readonly<Record<string, number>> = { top_p: 1, frequency_penalty: 0, presence_penalty: 0 };

/**
 * Reads the body. Refused by name (400): what would change the answer and cannot be carried
 * (`background`, `top_logprobs`, non-neutral sampling, `conversation`); a `previous_response_id`
 * is read by the door before this, from the stored response (`continueFrom`). Fields that only
 * tune the service (`service_tier`, `user`, `safety_identifier`, `stream_options`,
 * `client_metadata`, `text.verbosity`, `include`…) are accepted and repeated or ignored.
 */
export function readResponsesRequest(raw: unknown): ResponsesRequest {
  if (!isObject(raw)) throw refuseField('', 'the body must be a JSON object');
  const body = raw;
  const model = body['model'];
  if (typeof model !== 'string' || model === '' || model.length > MAX_MODEL_LENGTH) {
    throw refuseField('/model', 'must be a non-empty string');
  }
  refuseUnsupported(body);
  const instructions = optionalString(body, 'instructions');
  const tools = readResponseTools(body['tools']);
  const conversation = readResponseInput(body['input'] ?? [], instructions);
  if (conversation.messages.length === 0) throw refuseField('/input', 'must hold at least one item');
  const stream = body['stream'] === true;
  const store = body['store'] === true;
  const metadata = readMetadata(body['metadata']);
  const promptCacheKey = optionalString(body, 'prompt_cache_key');
  const temperature = optionalNumber(body, 'temperature', 0, 2);
  const maxOutputTokens = optionalInteger(body, 'max_output_tokens', 1);
  const include = Array.isArray(body['include']) ? body['include'] : [];
  // An effort the gateway cannot map is a 400 whatever the use case; the JSON one has no thinking.
  const reasoning = readReasoning(body['reasoning']);
  const common = {
    model,
    stream,
    metadata,
    session: { promptCacheKey, endUser: body['safety_identifier'] ?? body['user'] },
    tools,
    sources: conversation.sources,
    echo: echoOf(body, instructions, tools, {
      temperature,
      maxOutputTokens,
      store,
      metadata,
      promptCacheKey,
    }),
    includeEncryptedReasoning: include.includes('reasoning.encrypted_content'),
    store,
    body,
  };
  const format =
    isObject(body['text']) && isObject(body['text']['format']) ? body['text']['format'] : undefined;
  if (format !== undefined && format['type'] !== 'text') {
    if (tools.definitions.length > 0)
      throw refuseField('/text/format', 'cannot be combined with tools on this gateway');
    const input: JsonInput = {
      messages: conversation.messages,
      schema: readFormatSchema(format),
      temperature,
    };
    if (typeof format['name'] === 'string') input.schemaName = format['name'];
    return { ...common, use: 'json', input };
  }
  const input: ChatInput = { messages: conversation.messages, temperature };
  if (maxOutputTokens !== undefined) input.maxTokens = maxOutputTokens;
  if (tools.definitions.length > 0) input.tools = tools.definitions;
  const choice = readToolChoice(body['tool_choice'], tools);
  if (choice !== undefined) input.toolChoice = choice;
  if (reasoning !== undefined) input.reasoning = reasoning;
  return { ...common, use: 'chat', input };
}

function refuseUnsupported(body: JsonObject): void {
  if (body['background'] === true) throw refuseField('/background', 'background responses are not supported');
  if (body['conversation'] != null)
    throw refuseField('/conversation', 'conversations are not supported: use previous_response_id');
  if (body['prompt'] != null) throw refuseField('/prompt', 'stored prompt templates are not supported');
  const logprobs = body['top_logprobs'];
  if (logprobs != null && logprobs !== 0)
    throw refuseField('/top_logprobs', 'log probabilities are not supported');
  for (const [field, neutral] of Object.entries(NEUTRAL)) {
    const value = body[field];
    if (value != null && value !== neutral) {
      throw refuseField(`/${field}`, `only ${neutral} is supported (the gateway has no such setting)`);
    }
  }
  if (body['stream'] != null && typeof body['stream'] !== 'boolean')
    throw refuseField('/stream', 'must be a boolean');
  if (body['store'] != null && typeof body['store'] !== 'boolean')
    throw refuseField('/store', 'must be a boolean');
}

function readFormatSchema(format: JsonObject): Record<string, unknown> {
  if (format['type'] === 'json_object') return JSON_OBJECT_SCHEMA;
  if (format['type'] !== 'json_schema') {
    throw refuseField('/text/format/type', "must be 'text', 'json_object' or 'json_schema'");
  }
  const schema = format['schema'];
  if (!isObject(schema)) throw refuseField('/text/format/schema', 'must be a JSON Schema object');
  return schema;
}

function optionalString(body: JsonObject, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw refuseField(`/${key}`, 'must be a string');
  return value;
}

function optionalNumber(body: JsonObject, key: string, minimum: number, maximum: number): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < minimum || value > maximum) {
    throw refuseField(`/${key}`, `must be a number between ${minimum} and ${maximum}`);
  }
  return value;
}

function optionalInteger(body: JsonObject, key: string, minimum: number): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum) {
    throw refuseField(`/${key}`, `must be an integer of at least ${minimum}`);
  }
  return value;
}

/**
 * OpenAI's metadata: up to 16 keys (of string values there; any small JSON value here, as on the
 * other doors, where the simulated provider reads its test directives from it). Kept in the
 * ledger and repeated in the Response.
 */
function readMetadata(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw refuseField('/metadata', 'must be an object');
  if (Object.keys(value).length > MAX_METADATA_KEYS)
    throw refuseField('/metadata', `at most ${MAX_METADATA_KEYS} keys`);
  if (JSON.stringify(value).length > MAX_METADATA_CHARS) {
    throw refuseField('/metadata', `must be at most ${MAX_METADATA_CHARS} characters as JSON`);
  }
  return value;
}

interface Settings {
  temperature: number | undefined;
  maxOutputTokens: number | undefined;
  store: boolean;
  metadata: Record<string, unknown> | undefined;
  promptCacheKey: string | undefined;
}

function echoOf(
  body: JsonObject,
  instructions: string | undefined,
  tools: ReadTools,
  settings: Settings,
): ResponseEcho {
  const text = isObject(body['text']) ? body['text'] : {};
  const reasoning = isObject(body['reasoning']) ? body['reasoning'] : {};
  const previous = body['previous_response_id'];
  return {
    instructions: instructions ?? null,
    previous_response_id: typeof previous === 'string' ? previous : null,
    tools: echoTools(body['tools'], tools),
    tool_choice: body['tool_choice'] ?? 'auto',
    truncation: body['truncation'] === 'auto' ? 'auto' : 'disabled',
    parallel_tool_calls: body['parallel_tool_calls'] !== false,
    text: { format: text['format'] ?? { type: 'text' }, verbosity: text['verbosity'] ?? 'medium' },
    top_p: 1,
    temperature: settings.temperature ?? 1,
    reasoning: { effort: reasoning['effort'] ?? null, summary: reasoning['summary'] ?? null },
    max_output_tokens: settings.maxOutputTokens ?? null,
    max_tool_calls: typeof body['max_tool_calls'] === 'number' ? body['max_tool_calls'] : null,
    store: settings.store,
    service_tier: 'default',
    metadata: settings.metadata ?? {},
    safety_identifier: typeof body['safety_identifier'] === 'string' ? body['safety_identifier'] : null,
    prompt_cache_key: settings.promptCacheKey ?? null,
    user: typeof body['user'] === 'string' ? body['user'] : null,
  };
}

/**
 * The tools as the Response lists them: function tools with every field (as OpenAI answers),
 * custom and namespace tools as sent; the hosted ones left out were not offered to the model.
 */
function echoTools(value: unknown, tools: ReadTools): unknown[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((tool) => isObject(tool) && !tools.ignored.includes(String(tool['type'])))
    .map((tool: JsonObject) =>
      tool['type'] !== 'function'
        ? tool
        : {
            type: 'function',
            name: tool['name'],
            description: tool['description'] ?? null,
            parameters: tool['parameters'] ?? null,
            strict: typeof tool['strict'] === 'boolean' ? tool['strict'] : null,
          },
    );
}
