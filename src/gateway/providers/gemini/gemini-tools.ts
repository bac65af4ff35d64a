import type { ChatMessage, ToolChoice, ToolDefinition } from '../provider.ts';
import { decodeSignedCallId } from './signed-call-id.ts';

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

/** What the request translation needs of a call the conversation made. */
export interface ReplayedCall {
  name: string;
  /** The id to give Gemini: the one Gemini issued (taken out of a signed id), or the client's. */
  geminiId: string;
  thoughtSignature: string | undefined;
}

/**
 * The calls of the conversation's assistant messages by the id the client knows them by. A
 * `functionResponse` must name the function it answers, and the gateway's tool message carries only
 * the call's id; an id the gateway handed out for a signed Gemini call also carries Gemini's own id
 * and the call's thought signature (signed-call-id.ts). Any other id (another vendor's, an older
 * one, one a client made up that merely looks signed) is used as it is, without a signature.
 */
export function replayedCallsById(messages: readonly ChatMessage[]): Map<string, ReplayedCall> {
  const calls = new Map<string, ReplayedCall>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls ?? []) {
      const signed = decodeSignedCallId(call.id);
      calls.set(call.id, {
        name: call.name,
        geminiId: signed?.id ?? call.id,
        thoughtSignature: signed?.thoughtSignature,
      });
    }
  }
  return calls;
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
 * Gemini 3 models refuse a conversation whose current turn has a step (a model turn with calls)
 * whose first functionCall part lacks a `thoughtSignature`. The calls Gemini signed get their own
 * signature back (carried in the call's id, see signed-call-id.ts); a step whose first call has none
 * (it came from another vendor after a fallback, from a client, or from an id that could not carry
 * it) gets this value, which Google documents for function calls it did not produce and which skips
 * that check; earlier Gemini models ignore it. It goes on the first functionCall part of the step,
 * where Gemini itself puts the signature of a set of parallel calls.
 */
export const REPLAYED_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';
