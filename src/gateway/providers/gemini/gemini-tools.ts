import type { ChatMessage, ToolChoice, ToolDefinition } from '../provider.ts';

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  /**
   * The parameters as JSON Schema, passed through unchanged. The older `parameters` field takes an
   * OpenAPI 3.0 subset (no `$ref`, `anyOf`, `additionalProperties`…) that would need converting
   * and loses meaning; `parametersJsonSchema` takes JSON Schema as the caller wrote it (the two are
   * mutually exclusive).
   */
  parametersJsonSchema: Record<string, unknown>;
}

export interface GeminiTool {
  functionDeclarations: GeminiFunctionDeclaration[];
}

export interface GeminiToolConfig {
  functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] };
}

/** All declarations go in one Tool, as Gemini's own examples do. */
export function toGeminiTools(tools: readonly ToolDefinition[]): GeminiTool[] {
  const functionDeclarations = tools.map((tool) => {
    const declaration: GeminiFunctionDeclaration = {
      name: tool.name,
      parametersJsonSchema: tool.parameters,
    };
    if (tool.description !== undefined) declaration.description = tool.description;
    return declaration;
  });
  return [{ functionDeclarations }];
}

/** `required` is mode ANY; a named tool is ANY restricted to that one name. */
export function toGeminiToolConfig(choice: ToolChoice): GeminiToolConfig {
  if (typeof choice !== 'string') {
    return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
  }
  const mode = choice === 'auto' ? 'AUTO' : choice === 'none' ? 'NONE' : 'ANY';
  return { functionCallingConfig: { mode } };
}

/**
 * A `functionResponse` must name the function it answers, and the gateway's tool message carries
 * only the call's id: the name is that of the call with this id in an earlier assistant message.
 */
export function callNamesById(messages: readonly ChatMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls ?? []) names.set(call.id, call.name);
  }
  return names;
}

/**
 * A tool's result as the object `functionResponse.response` requires: the content itself when it is
 * a JSON object, otherwise (plain text, a number, an array) wrapped as `{result: content}`, the
 * whole of which Gemini then reads as the function's output.
 */
export function functionResponseBody(content: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(content);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      return parsed as Record<string, unknown>;
    }
  } catch {
    // Not JSON: sent as text below.
  }
  return { result: content };
}

/**
 * Gemini 3 models refuse a conversation whose function calls of the current turn lack the
 * `thoughtSignature` they were returned with. The gateway's tool calls do not carry signatures (they
 * may come from another vendor or a client that never saw one), so every replayed model turn with
 * calls carries the value Google documents for history it did not produce, which skips that check;
 * earlier Gemini models ignore it. It goes on the first functionCall part of the turn, where Gemini
 * itself puts the signature of a set of parallel calls.
 */
export const REPLAYED_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';
