import { hasRichParts, isMediaPart } from '../../domain/content-parts.ts';
import type { ChatCall, ChatMessage } from '../provider.ts';
import { argumentsObject } from '../tool-arguments.ts';
import {
  type GeminiMediaPart,
  toGeminiMedia,
  toGeminiParts,
  toThinkingConfig,
} from './gemini-content-parts.ts';
import {
  functionResponseBody,
  type GeminiTool,
  type GeminiToolConfig,
  REPLAYED_THOUGHT_SIGNATURE,
  type ReplayedCall,
  replayedCallsById,
  toGeminiToolConfig,
  toGeminiTools,
} from './gemini-tools.ts';

export type GeminiPart =
  | { text: string }
  | GeminiMediaPart
  | {
      functionCall: { id?: string; name: string; args: Record<string, unknown> };
      thoughtSignature?: string;
    }
  | { functionResponse: { id?: string; name: string; response: Record<string, unknown> } };

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GeminiGenerationConfig {
  temperature?: number;
  maxOutputTokens?: number;
  responseMimeType?: 'application/json';
  responseJsonSchema?: Record<string, unknown>;
  stopSequences?: string[];
  thinkingConfig?: { thinkingBudget: number };
}

/** The body of `models/{model}:generateContent` and `:streamGenerateContent` (v1beta). */
export interface GeminiGenerateContentRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: GeminiTool[];
  toolConfig?: GeminiToolConfig;
  generationConfig?: GeminiGenerationConfig;
}

/**
 * Translates a gateway chat call to Gemini's GenerateContentRequest.
 *
 * - `system` messages become one `systemInstruction`, their texts joined in order: Gemini has no
 *   system role inside `contents`.
 * - `assistant` is Gemini's `model` role; `user` stays `user`.
 * - An assistant message's `toolCalls` become `functionCall` parts after its text (`args` the parsed
 *   arguments). A call whose id the gateway issued for a signed Gemini call gets Gemini's id and its
 *   `thoughtSignature` back on its part (signed-call-id.ts); the first call part of a model turn
 *   that still has no signature gets REPLAYED_THOUGHT_SIGNATURE.
 * - A `tool` message with a `toolCallId` becomes a `functionResponse` part in a `user` turn, named
 *   after the call it answers (looked up in the earlier assistant messages), its `response` the
 *   content as a JSON object (see functionResponseBody). Both parts carry the same id (Gemini's, for
 *   a signed id), so Gemini can pair them even when several calls share a name.
 * - A `tool` message without a `toolCallId` (older clients), or answering a call no earlier message
 *   made, goes back as `user` text ("Tool result: …"), as there is nothing to pair it with.
 * - `tools` are `functionDeclarations`, `toolChoice` is `toolConfig.functionCallingConfig`, `stop`
 *   is `generationConfig.stopSequences`.
 * - Consecutive turns of one role are merged (one part per message) because Gemini expects the
 *   conversation to alternate between `user` and `model`.
 * - Messages with empty text are left out: Gemini refuses empty text parts.
 * - `name` is not sent (Gemini has no such field), except to label a tool result.
 * - When only system text remains, it is sent as the user turn: `contents` must not be empty.
 */
export function toGeminiRequest(call: ChatCall): GeminiGenerateContentRequest {
  const systemTexts: string[] = [];
  const contents: GeminiContent[] = [];
  const calls = replayedCallsById(call.messages);
  for (const message of call.messages) {
    if (message.role === 'system') {
      if (message.content !== '') systemTexts.push(message.content);
      continue;
    }
    const parts = messageParts(message, calls);
    if (parts.length === 0) continue;
    const role = message.role === 'assistant' ? 'model' : 'user';
    const previous = contents.at(-1);
    if (previous?.role === role) previous.parts.push(...parts);
    else contents.push({ role, parts });
  }

  for (const content of contents) if (content.role === 'model') signFirstCall(content.parts);
  const request: GeminiGenerateContentRequest = { contents };
  const systemText = systemTexts.join('\n\n');
  if (contents.length === 0) {
    contents.push({ role: 'user', parts: [{ text: systemText }] });
  } else if (systemText !== '') {
    request.systemInstruction = { parts: [{ text: systemText }] };
  }

  if (call.tools !== undefined && call.tools.length > 0) {
    request.tools = toGeminiTools(call.tools);
    if (call.toolChoice !== undefined) request.toolConfig = toGeminiToolConfig(call.toolChoice);
  }
  const generationConfig = toGenerationConfig(call);
  if (Object.keys(generationConfig).length > 0) request.generationConfig = generationConfig;
  return request;
}

function messageParts(message: ChatMessage, calls: ReadonlyMap<string, ReplayedCall>): GeminiPart[] {
  if (message.role === 'tool' && message.toolCallId !== undefined) {
    const answered = calls.get(message.toolCallId);
    if (answered !== undefined) {
      const response = functionResponseBody(message.content);
      // A result's images and PDFs follow its functionResponse in the same user turn.
      const media = (message.parts ?? []).filter(isMediaPart).map(toGeminiMedia);
      return [{ functionResponse: { id: answered.geminiId, name: answered.name, response } }, ...media];
    }
  }
  if (message.role === 'user' && hasRichParts(message.parts)) return toGeminiParts(message.parts ?? []);
  const text = turnText(message);
  const parts: GeminiPart[] = text === '' ? [] : [{ text }];
  if (message.role === 'tool') parts.push(...(message.parts ?? []).filter(isMediaPart).map(toGeminiMedia));
  if (message.role !== 'assistant') return parts;
  for (const toolCall of message.toolCalls ?? []) {
    const replayed = calls.get(toolCall.id);
    const functionCall = {
      id: replayed?.geminiId ?? toolCall.id,
      name: toolCall.name,
      args: argumentsObject(toolCall.arguments),
    };
    const thoughtSignature = replayed?.thoughtSignature;
    parts.push(thoughtSignature === undefined ? { functionCall } : { functionCall, thoughtSignature });
  }
  return parts;
}

/** The first functionCall part of a model turn must carry a signature on Gemini 3: its own, or the stand-in. */
function signFirstCall(parts: GeminiPart[]): void {
  const first = parts.find((part) => 'functionCall' in part);
  if (first !== undefined && 'functionCall' in first && first.thoughtSignature === undefined) {
    first.thoughtSignature = REPLAYED_THOUGHT_SIGNATURE;
  }
}

function turnText(message: ChatMessage): string {
  if (message.role !== 'tool' || message.content === '') return message.content;
  const from = message.name === undefined || message.name === '' ? '' : ` (${message.name})`;
  return `Tool result${from}: ${message.content}`;
}

function toGenerationConfig(call: ChatCall): GeminiGenerationConfig {
  const config: GeminiGenerationConfig = {};
  if (call.temperature !== undefined) config.temperature = call.temperature;
  if (call.maxTokens !== undefined) config.maxOutputTokens = call.maxTokens;
  if (call.stop !== undefined && call.stop.length > 0) config.stopSequences = [...call.stop];
  const thinking = call.reasoning === undefined ? undefined : toThinkingConfig(call.model, call.reasoning);
  if (thinking !== undefined) config.thinkingConfig = thinking;
  if (call.jsonSchema !== undefined) {
    // `responseJsonSchema` takes JSON Schema as is (passed through unchanged, as the official SDK
    // does); the older `responseSchema` takes an OpenAPI subset that would need converting.
    config.responseMimeType = 'application/json';
    config.responseJsonSchema = call.jsonSchema.schema;
  }
  return config;
}
