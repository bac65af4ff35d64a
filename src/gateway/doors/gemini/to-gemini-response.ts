import type { ThinkingPart } from '../../domain/content-parts.ts';
import type { FinishReason, ToolCall } from '../../domain/messages.ts';
import type { ResponseUsage } from '../../domain/usage.ts';
import type { ChatAnswer } from '../../services/use-cases/run-chat.ts';
import { encodeThoughtToken } from './thought-token.ts';

type Part = Record<string, unknown>;

/** Google's FinishReason for the gateway's; calls end with STOP, as Gemini's do. */
const FINISH: Readonly<Record<FinishReason, string>> = {
  stop: 'STOP',
  tool_calls: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
  other: 'OTHER',
};

export function finishReasonOf(reason: FinishReason): string {
  return FINISH[reason];
}

/**
 * usageMetadata from the answer's usage (CONTRACT 6.3, 6.9): the prompt with its cached tokens,
 * the candidates' tokens without the thinking, which Gemini counts apart, and the cost.
 */
export function toUsageMetadata(usage: ResponseUsage): Record<string, unknown> {
  const thoughts = usage.tokensOutReasoning ?? 0;
  const metadata: Record<string, unknown> = {
    promptTokenCount: usage.tokensIn,
    candidatesTokenCount: Math.max(0, usage.tokensOut - thoughts),
    totalTokenCount: usage.tokensIn + usage.tokensOut,
  };
  if (usage.tokensInCacheRead > 0) metadata['cachedContentTokenCount'] = usage.tokensInCacheRead;
  if (thoughts > 0) metadata['thoughtsTokenCount'] = thoughts;
  metadata['costUsd'] = usage.estimatedCost;
  return metadata;
}

/**
 * The thinking of an answer as Gemini writes it: its text as `thought` parts (what a client shows
 * as the model's thoughts), and, where the vendor signed it, the gateway's token, which goes on the
 * answer's first part that is not a thought (a call, or the text): Gemini's clients keep a
 * signature there and drop thought parts from their history.
 */
export function thoughtParts(thinking: readonly ThinkingPart[]): {
  parts: Part[];
  token: string | undefined;
} {
  const parts: Part[] = thinking
    .filter((part) => part.text !== '')
    .map((part) => ({ text: part.text, thought: true }));
  return { parts, token: thinking.length === 0 ? undefined : encodeThoughtToken(thinking) };
}

export function functionCallPart(call: ToolCall): Part {
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    // A model that wrote no JSON: its text is given as the one argument, not lost.
    args = { input: call.arguments };
  }
  return {
    functionCall: {
      id: call.id,
      name: call.name,
      args: typeof args === 'object' && args !== null ? args : { value: args },
    },
  };
}

/**
 * Puts the token on the first call (where Gemini puts its own signature, and where a tool loop
 * needs the thinking back), else on the first part that is not a thought, else on an empty text
 * part of its own.
 */
export function signFirst(parts: Part[], token: string | undefined): Part[] {
  if (token === undefined) return parts;
  const call = parts.findIndex((part) => part['functionCall'] !== undefined);
  const index = call !== -1 ? call : parts.findIndex((part) => part['thought'] !== true);
  if (index === -1) return [...parts, { text: '', thoughtSignature: token }];
  const signed = [...parts];
  signed[index] = { ...parts[index], thoughtSignature: token };
  return signed;
}

/** A whole answer as a GenerateContentResponse. */
export function toGeminiResponse(answer: ChatAnswer): Record<string, unknown> {
  const thoughts = thoughtParts(answer.thinking ?? []);
  const parts: Part[] = [...thoughts.parts];
  if (answer.message.content !== '') parts.push({ text: answer.message.content });
  for (const call of answer.message.toolCalls ?? []) parts.push(functionCallPart(call));
  return {
    candidates: [
      {
        content: { role: 'model', parts: signFirst(parts, thoughts.token) },
        finishReason: finishReasonOf(answer.finishReason),
        index: 0,
      },
    ],
    usageMetadata: toUsageMetadata(answer.usage),
    modelVersion: answer.model,
    responseId: answer.id,
  };
}
