import { hasRichParts } from '../../domain/content-parts.ts';
import { boundedCallId } from '../bounded-call-id.ts';
import type { ChatCall, ChatMessage } from '../provider.ts';
import {
  mediaOf,
  type OpenAIContentPart,
  reasoningEffortFor,
  toOpenAIParts,
} from './openai-content-parts.ts';
import {
  type OpenAITool,
  type OpenAIToolCall,
  type OpenAIToolChoice,
  toOpenAIToolChoice,
  toOpenAITools,
} from './openai-tools.ts';

/**
 * Which field carries the output-token cap. OpenAI deprecated `max_tokens` in favour of
 * `max_completion_tokens`, and its reasoning models (o-series, gpt-5) reject `max_tokens` with
 * `unsupported_parameter`. Many OpenAI-compatible servers (Ollama, older vLLM, llama.cpp) only
 * know `max_tokens` and silently ignore the new name, which would leave the cap unenforced. So
 * OpenAI's own hosts get the new field and every other base URL gets the one all servers know.
 */
export type MaxTokensField = 'max_tokens' | 'max_completion_tokens';

/** api.openai.com, and Azure OpenAI's v1-compatible endpoints, which serve the same models. */
const OPENAI_HOST = /(^|\.)openai\.com$|\.openai\.azure\.com$/i;

export function maxTokensFieldFor(baseUrl: string): MaxTokensField {
  let host: string;
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    return 'max_tokens';
  }
  return OPENAI_HOST.test(host) ? 'max_completion_tokens' : 'max_tokens';
}

export type OpenAIChatMessage =
  | { role: 'system'; content: string; name?: string }
  | { role: 'user'; content: string | OpenAIContentPart[]; name?: string }
  /** `content` is null on an assistant message that only calls tools, as OpenAI writes it. */
  | { role: 'assistant'; content: string | null; name?: string; tool_calls?: OpenAIToolCall[] }
  | { role: 'tool'; content: string; tool_call_id: string };

export interface OpenAIResponseFormat {
  type: 'json_schema';
  json_schema: { name: string; schema: Record<string, unknown>; strict: false };
}

/** The Chat Completions body this adapter sends: only fields every compatible server accepts. */
export interface OpenAIChatRequest {
  model: string;
  messages: OpenAIChatMessage[];
  temperature?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  response_format?: OpenAIResponseFormat;
  tools?: OpenAITool[];
  tool_choice?: OpenAIToolChoice;
  stop?: string[];
  stream?: true;
  stream_options?: { include_usage: true };
  reasoning_effort?: 'low' | 'medium' | 'high';
  prompt_cache_key?: string;
}

export interface ChatRequestOptions {
  stream: boolean;
  maxTokensField: MaxTokensField;
  /** Stable per app and session (CONTRACT 5.2): OpenAI routes a session to the machine holding its prefix. */
  promptCacheKey?: string | undefined;
}

export function toOpenAIChatRequest(call: ChatCall, options: ChatRequestOptions): OpenAIChatRequest {
  const body: OpenAIChatRequest = { model: call.model, messages: toOpenAIMessages(call.messages) };
  if (call.temperature !== undefined) body.temperature = call.temperature;
  if (call.maxTokens !== undefined) body[options.maxTokensField] = call.maxTokens;
  if (call.jsonSchema !== undefined) {
    body.response_format = {
      type: 'json_schema',
      // Not strict: strict mode accepts only a subset of JSON Schema (every property required,
      // additionalProperties false), which arbitrary caller schemas rarely meet and which would
      // turn into a 400. The gateway validates the output itself and re-asks on failure.
      json_schema: {
        name: toOpenAIName(call.jsonSchema.name) ?? 'output',
        schema: call.jsonSchema.schema,
        strict: false,
      },
    };
  }
  // An empty list is not sent: OpenAI refuses `tools: []` (and a tool_choice without tools).
  if (call.tools !== undefined && call.tools.length > 0) {
    body.tools = toOpenAITools(call.tools);
    if (call.toolChoice !== undefined) body.tool_choice = toOpenAIToolChoice(call.toolChoice);
  }
  if (call.stop !== undefined && call.stop.length > 0) body.stop = [...call.stop];
  const effort = reasoningEffortFor(call.model, call.reasoning);
  if (effort !== undefined) body.reasoning_effort = effort;
  if (options.promptCacheKey !== undefined) body.prompt_cache_key = options.promptCacheKey;
  if (options.stream) {
    body.stream = true;
    // Without it the stream carries no token counts and the gateway would have to estimate.
    body.stream_options = { include_usage: true };
  }
  return body;
}

/**
 * The messages in order. A `tool` message cannot hold images or files in Chat Completions, so a
 * tool result's media follow the run of tool messages it belongs to as one user message (after
 * the run: OpenAI wants every result of an assistant's calls right after it), introduced by a text
 * naming the calls whose results they are.
 */
function toOpenAIMessages(messages: readonly ChatMessage[]): OpenAIChatMessage[] {
  const out: OpenAIChatMessage[] = [];
  let pending: OpenAIContentPart[] = [];
  const flush = () => {
    if (pending.length > 0) out.push({ role: 'user', content: pending });
    pending = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flush();
    out.push(toOpenAIMessage(message));
    const media = message.role === 'tool' ? mediaOf(message.parts) : [];
    if (media.length > 0) {
      const from =
        message.toolCallId === undefined
          ? 'a tool'
          : `tool call ${boundedCallId(message.toolCallId, 'openai')}`;
      pending.push({ type: 'text', text: `The result of ${from} holds:` }, ...toOpenAIParts(media));
    }
  }
  flush();
  return out;
}

/**
 * A `tool` message with a `toolCallId` is a real `role: "tool"` result, and an assistant message's
 * `toolCalls` become its `tool_calls` (with `content: null` when it said nothing, as OpenAI itself
 * writes such a message).
 *
 * A `tool` message without a `toolCallId` (older clients) has nothing for OpenAI's required
 * `tool_call_id` to name, and no preceding `tool_calls` to answer. It is sent as a user message
 * labelled as a tool result, so the model still sees the content and its origin, and the
 * conversation stays valid on every compatible server.
 */
function toOpenAIMessage(message: ChatMessage): OpenAIChatMessage {
  if (message.role === 'tool') {
    if (message.toolCallId !== undefined) {
      return {
        role: 'tool',
        tool_call_id: boundedCallId(message.toolCallId, 'openai'),
        content: message.content,
      };
    }
    const label = message.name === undefined ? 'Tool result' : `Tool result (${message.name})`;
    return { role: 'user', content: `${label}: ${message.content}` };
  }
  const name = message.name === undefined ? undefined : toOpenAIName(message.name);
  if (message.role === 'assistant') {
    const calls = message.toolCalls ?? [];
    const out: OpenAIChatMessage = { role: 'assistant', content: message.content };
    if (calls.length > 0) {
      if (message.content === '') out.content = null;
      out.tool_calls = calls.map((call) => ({
        id: boundedCallId(call.id, 'openai'),
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      }));
    }
    if (name !== undefined) out.name = name;
    return out;
  }
  const out: OpenAIChatMessage =
    message.role === 'user'
      ? {
          role: 'user',
          content: hasRichParts(message.parts) ? toOpenAIParts(message.parts ?? []) : message.content,
        }
      : { role: message.role, content: message.content };
  if (name !== undefined) out.name = name;
  return out;
}

/**
 * OpenAI refuses a message `name` or schema name outside `^[a-zA-Z0-9_-]+$` (max 64) with a
 * 400, while the gateway accepts any string. Other characters become `_` so that distinct
 * participants stay distinct; a name with nothing left is dropped.
 */
export function toOpenAIName(name: string): string | undefined {
  const safe = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return /[a-zA-Z0-9]/.test(safe) ? safe : undefined;
}
