import type { ChatCall, ChatMessage } from '../provider.ts';

export interface GeminiPart {
  text: string;
}

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GeminiGenerationConfig {
  temperature?: number;
  maxOutputTokens?: number;
  responseMimeType?: 'application/json';
  responseJsonSchema?: Record<string, unknown>;
}

/** The body of `models/{model}:generateContent` and `:streamGenerateContent` (v1beta). */
export interface GeminiGenerateContentRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: GeminiPart[] };
  generationConfig?: GeminiGenerationConfig;
}

/**
 * Translates a gateway chat call to Gemini's GenerateContentRequest.
 *
 * - `system` messages become one `systemInstruction`, their texts joined in order: Gemini has no
 *   system role inside `contents`.
 * - `assistant` is Gemini's `model` role; `user` stays `user`.
 * - `tool` results go back as `user` text ("Tool result: …"): the gateway has no function-call ids
 *   to pair them with, so a `functionResponse` part cannot be built.
 * - Consecutive turns of one role are merged (one part per message) because Gemini expects the
 *   conversation to alternate between `user` and `model`.
 * - Messages with empty text are left out: Gemini refuses empty text parts.
 * - `name` is not sent (Gemini has no such field), except to label a tool result.
 * - When only system text remains, it is sent as the user turn: `contents` must not be empty.
 */
export function toGeminiRequest(call: ChatCall): GeminiGenerateContentRequest {
  const systemTexts: string[] = [];
  const contents: GeminiContent[] = [];
  for (const message of call.messages) {
    if (message.role === 'system') {
      if (message.content !== '') systemTexts.push(message.content);
      continue;
    }
    const text = turnText(message);
    if (text === '') continue;
    const role = message.role === 'assistant' ? 'model' : 'user';
    const previous = contents.at(-1);
    if (previous?.role === role) previous.parts.push({ text });
    else contents.push({ role, parts: [{ text }] });
  }

  const request: GeminiGenerateContentRequest = { contents };
  const systemText = systemTexts.join('\n\n');
  if (contents.length === 0) {
    contents.push({ role: 'user', parts: [{ text: systemText }] });
  } else if (systemText !== '') {
    request.systemInstruction = { parts: [{ text: systemText }] };
  }

  const generationConfig = toGenerationConfig(call);
  if (Object.keys(generationConfig).length > 0) request.generationConfig = generationConfig;
  return request;
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
  if (call.jsonSchema !== undefined) {
    // `responseJsonSchema` takes JSON Schema as is (passed through unchanged, as the official SDK
    // does); the older `responseSchema` takes an OpenAPI subset that would need converting.
    config.responseMimeType = 'application/json';
    config.responseJsonSchema = call.jsonSchema.schema;
  }
  return config;
}
