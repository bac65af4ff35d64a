import { MediaTally, partsText } from '../../domain/content-parts.ts';
import type { ChatMessage, ToolCall, ToolChoice, ToolDefinition } from '../../domain/messages.ts';
import type { ChatInput, JsonInput } from '../../domain/use-case-inputs.ts';
import type { DoorChatRequest } from '../chat-door.ts';
import { JSON_OBJECT_SCHEMA } from '../json-object-schema.ts';
import { refuseField } from '../openai-refusal.ts';
import type { OpenAIChatBody, OpenAIMessageParam } from './openai-schemas.ts';
import { readReasoningEffort, readUserParts } from './read-openai-parts.ts';

/**
 * A chat completion request in the gateway's words. Its use case is the chat itself, or, for
 * `response_format` `json_schema` / `json_object`, the structured-output use case of `POST
 * /v1/json` (native structured output where the upstream has it, parsed and validated, re-asked
 * on failure). `model` is resolved by the edge, as on every door.
 */
export type CompletionRequest = DoorChatRequest & {
  model: string;
  /** `stream_options.include_usage`: a last chunk with `choices: []` and the usage. */
  includeUsage: boolean;
};

/**
 * Reads a chat completion request (its schema already checked). Fields that would change the
 * answer and that the gateway cannot honour are refused by name (400); fields that only tune the
 * service (`user`, `store`, `service_tier`, `seed`, `parallel_tool_calls`…) are ignored.
 * `reasoning_effort` becomes the request's reasoning, which every upstream gets in its own form.
 */
export function readCompletionRequest(body: OpenAIChatBody): CompletionRequest {
  refuseUnsupported(body as OpenAIChatBody & Record<string, unknown>);
  const tally = new MediaTally();
  const messages = body.messages.map((message, index) => toChatMessage(message, index, tally));
  const stream = body.stream === true;
  const common = {
    model: body.model,
    stream,
    includeUsage: stream && body.stream_options?.include_usage === true,
    metadata: body.metadata ?? undefined,
    session: {
      promptCacheKey: body.prompt_cache_key,
      endUser: (body as Record<string, unknown>).safety_identifier ?? (body as Record<string, unknown>).user,
    },
  };
  const temperature = body.temperature ?? undefined;
  const format = body.response_format ?? undefined;
  if (format !== undefined && format.type !== 'text') {
    if (body.tools != null && body.tools.length > 0) {
      throw refuseField('/response_format', 'cannot be combined with tools on this gateway');
    }
    const spec = format.type === 'json_schema' ? format.json_schema : undefined;
    if (format.type === 'json_schema' && spec === undefined) {
      throw refuseField('/response_format', "must have required property 'json_schema'");
    }
    const input: JsonInput = {
      messages,
      schema: spec?.schema ?? JSON_OBJECT_SCHEMA,
      schemaName: spec?.name,
      temperature,
    };
    return { ...common, use: 'json', input };
  }
  const input: ChatInput = { messages, temperature };
  const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  if (maxTokens !== undefined) input.maxTokens = maxTokens;
  const stop = body.stop ?? undefined;
  if (stop !== undefined) input.stop = typeof stop === 'string' ? [stop] : stop;
  if (body.tools != null && body.tools.length > 0) input.tools = body.tools.map(toToolDefinition);
  const choice = body.tool_choice ?? undefined;
  if (choice !== undefined) input.toolChoice = toToolChoice(choice);
  const reasoning = readReasoningEffort((body as Record<string, unknown>)['reasoning_effort']);
  if (reasoning !== undefined) input.reasoning = reasoning;
  return { ...common, use: 'chat', input };
}

/** A sampling setting is harmless at its neutral value only. */
const NEUTRAL: Readonly<Record<string, unknown>> = { top_p: 1, frequency_penalty: 0, presence_penalty: 0 };

function refuseUnsupported(body: OpenAIChatBody & Record<string, unknown>): void {
  if (body.n != null && body.n > 1) throw refuseField('/n', 'only one choice (n: 1) is supported');
  if (body['logprobs'] === true) throw refuseField('/logprobs', 'log probabilities are not supported');
  if (body['top_logprobs'] != null) throw refuseField('/top_logprobs', 'log probabilities are not supported');
  if (body['audio'] != null) throw refuseField('/audio', 'audio output is not supported');
  const modalities = body['modalities'];
  if (Array.isArray(modalities) && modalities.includes('audio')) {
    throw refuseField('/modalities', 'audio output is not supported');
  }
  if (body['prediction'] != null) throw refuseField('/prediction', 'predicted outputs are not supported');
  if (body['functions'] != null) throw refuseField('/functions', 'deprecated: use tools');
  if (body['function_call'] != null) throw refuseField('/function_call', 'deprecated: use tool_choice');
  if (body['web_search_options'] != null) {
    throw refuseField('/web_search_options', 'web search is not supported');
  }
  const bias = body['logit_bias'];
  if (bias != null && typeof bias === 'object' && Object.keys(bias).length > 0) {
    throw refuseField('/logit_bias', 'logit bias is not supported');
  }
  for (const [field, neutral] of Object.entries(NEUTRAL)) {
    const value = body[field];
    if (value != null && value !== neutral) {
      throw refuseField(
        `/${field}`,
        `only ${String(neutral)} is supported (the gateway has no such setting)`,
      );
    }
  }
}

function toChatMessage(message: OpenAIMessageParam, index: number, tally: MediaTally): ChatMessage {
  const at = `/messages/${index}`;
  const out: ChatMessage = { role: 'user', content: '' };
  switch (message.role) {
    case 'system':
    case 'developer':
      out.role = 'system';
      out.content = textOf(message.content, at, false);
      break;
    case 'user':
      if (Array.isArray(message.content) && message.content.some((part) => part.type !== 'text')) {
        const parts = readUserParts(message.content, at, tally);
        out.content = partsText(parts, '');
        out.parts = parts;
      } else out.content = textOf(message.content, at, false);
      break;
    case 'assistant': {
      out.role = 'assistant';
      out.content = textOf(message.content, at, true);
      const calls = message.tool_calls ?? [];
      if (calls.length > 0) out.toolCalls = calls.map((call, i) => toToolCall(call, `${at}/tool_calls/${i}`));
      else if (message.content == null)
        throw refuseField(`${at}/content`, 'must be set when there are no tool_calls');
      break;
    }
    case 'tool':
      out.role = 'tool';
      out.content = textOf(message.content, at, false);
      if (message.tool_call_id === undefined) {
        throw refuseField(at, "must have required property 'tool_call_id'");
      }
      out.toolCallId = message.tool_call_id;
      break;
    default:
      throw refuseField(`${at}/role`, "'function' messages are deprecated: use tool messages");
  }
  if (message.name !== undefined && message.role !== 'tool') out.name = message.name;
  return out;
}

/** A message's text: a string, or its text parts joined; other parts cannot be carried. */
function textOf(content: OpenAIMessageParam['content'], at: string, nullable: boolean): string {
  if (typeof content === 'string') return content;
  if (content == null) {
    if (nullable) return '';
    throw refuseField(at, "must have required property 'content'");
  }
  let text = '';
  for (let i = 0; i < content.length; i++) {
    const part = content[i] as (typeof content)[number];
    // An assistant's refusal part is text the model wrote.
    if ((part.type === 'text' || (nullable && part.type === 'refusal')) && typeof part.text === 'string') {
      text += part.text;
    } else if (part.type === 'text') {
      throw refuseField(`${at}/content/${i}`, "must have required property 'text'");
    } else if (part.type === 'refusal' && nullable) {
      // A refusal part carries `refusal`, not `text`.
      const refusal = (part as { refusal?: unknown }).refusal;
      if (typeof refusal === 'string') text += refusal;
    } else {
      throw refuseField(`${at}/content/${i}/type`, `'${part.type}' content is not supported: only text`);
    }
  }
  return text;
}

function toToolCall(call: NonNullable<OpenAIMessageParam['tool_calls']>[number], at: string): ToolCall {
  if (call.type !== 'function' || call.function === undefined) {
    throw refuseField(`${at}/type`, 'only function tool calls are supported');
  }
  return { id: call.id, name: call.function.name, arguments: call.function.arguments };
}

function toToolDefinition(tool: NonNullable<OpenAIChatBody['tools']>[number], index: number): ToolDefinition {
  if (tool.type !== 'function' || tool.function === undefined) {
    throw refuseField(`/tools/${index}/type`, 'only function tools are supported');
  }
  const { name, description, parameters } = tool.function;
  // OpenAI: "Omitting parameters defines a function with an empty parameter list."
  const definition: ToolDefinition = { name, parameters: parameters ?? { type: 'object', properties: {} } };
  if (description !== undefined) definition.description = description;
  return definition;
}

function toToolChoice(choice: NonNullable<OpenAIChatBody['tool_choice']>): ToolChoice {
  if (typeof choice === 'string') return choice;
  if (choice.type !== 'function' || choice.function === undefined) {
    throw refuseField('/tool_choice/type', "only 'function' is supported");
  }
  return { name: choice.function.name };
}
