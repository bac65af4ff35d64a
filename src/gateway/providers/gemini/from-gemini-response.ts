import type { ProviderSlot } from '../../../config/config-types.ts';
import { isRecord } from '../json-guards.ts';
import type { ChatResult, FinishReason, ReportedUsage } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { type ReadFunctionCall, readFunctionCallPart, settleCallId } from './gemini-function-calls.ts';
import { geminiModelId } from './gemini-model.ts';

/** What the gateway reads from one GenerateContentResponse (a whole answer, or one stream chunk). */
export interface GeminiAnswerPart {
  /** Text of the first candidate's non-thought parts, concatenated. */
  text: string;
  /** The first candidate's functionCall parts, in order; Gemini sends each one whole. */
  calls: ReadFunctionCall[];
  /** Gemini's id for this answer (the same on every chunk of a stream). */
  responseId: string | undefined;
  /** Undefined while a stream is still going (Gemini sends no finish reason before the end). */
  finishReason: FinishReason | undefined;
  usage: ReportedUsage | undefined;
  modelVersion: string | undefined;
}

const CONTENT_FILTER = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/**
 * Gemini's FinishReason enum to the gateway's; anything unknown is `other`, which includes a call
 * Gemini could not complete (MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS).
 * Gemini says STOP after function calls too: withCalls turns that into `tool_calls`.
 */
export function mapFinishReason(reason: string): FinishReason {
  if (reason === 'STOP') return 'stop';
  // CONTINUATION: the per-request output limit was reached before the answer was complete.
  if (reason === 'MAX_TOKENS' || reason === 'CONTINUATION') return 'length';
  if (CONTENT_FILTER.has(reason)) return 'content_filter';
  return 'other';
}

/** An answer that calls functions stopped to have them run. */
export function withCalls(reason: FinishReason, calls: number): FinishReason {
  return calls > 0 && reason === 'stop' ? 'tool_calls' : reason;
}

/**
 * A generateContent answer to the gateway's ChatResult; the model falls back to the requested one.
 * `requestId` names calls when Gemini gives neither call ids nor a responseId (see settleCallId).
 */
export function fromGeminiResponse(
  body: unknown,
  requestedModel: string,
  slot: ProviderSlot,
  requestId = 'gemini',
): ChatResult {
  const answer = readGeminiAnswer(body, slot);
  if (answer.finishReason === undefined && !hasCandidate(body)) {
    throw invalid(slot, 'no candidates and no block reason');
  }
  const idBase = answer.responseId ?? requestId;
  const toolCalls = answer.calls.map((call, position) => settleCallId(call, idBase, position));
  const result: ChatResult = {
    model: answer.modelVersion ?? geminiModelId(requestedModel),
    content: answer.text,
    finishReason: withCalls(answer.finishReason ?? 'other', toolCalls.length),
    usage: answer.usage,
  };
  if (toolCalls.length > 0) result.toolCalls = toolCalls;
  return result;
}

/**
 * Reads a GenerateContentResponse, checking every field it uses. Thought parts (`thought: true`)
 * are left out of the text: they are the model's reasoning summary, not its answer.
 */
export function readGeminiAnswer(body: unknown, slot: ProviderSlot): GeminiAnswerPart {
  if (!isRecord(body)) throw invalid(slot, 'response is not an object');
  const candidates = body['candidates'];
  if (candidates !== undefined && !Array.isArray(candidates))
    throw invalid(slot, 'candidates is not an array');
  const first: unknown = candidates?.[0];
  let content: { text: string; calls: ReadFunctionCall[] } = { text: '', calls: [] };
  let finishReason: FinishReason | undefined;
  if (first !== undefined) {
    if (!isRecord(first)) throw invalid(slot, 'candidate is not an object');
    content = readContent(first['content'], slot);
    const reason = first['finishReason'];
    if (reason !== undefined && typeof reason !== 'string')
      throw invalid(slot, 'finishReason is not a string');
    if (reason !== undefined) finishReason = mapFinishReason(reason);
  } else if (blockReason(body['promptFeedback']) !== undefined) {
    // The prompt itself was blocked: no candidate at all, and nothing will follow.
    finishReason = 'content_filter';
  }
  const modelVersion = body['modelVersion'];
  const responseId = body['responseId'];
  return {
    text: content.text,
    calls: content.calls,
    responseId: typeof responseId === 'string' && responseId !== '' ? responseId : undefined,
    finishReason,
    usage: readUsage(body['usageMetadata']),
    modelVersion:
      typeof modelVersion === 'string' && modelVersion.trim() !== '' && modelVersion.length <= 200
        ? geminiModelId(modelVersion)
        : undefined,
  };
}

const USAGE_FIELDS = [
  'promptTokenCount',
  'candidatesTokenCount',
  'thoughtsTokenCount',
  'toolUsePromptTokenCount',
  'cachedContentTokenCount',
] as const;

/**
 * usageMetadata to ReportedUsage. `promptTokenCount` already includes cached tokens; thinking
 * tokens (`thoughtsTokenCount`) are output the caller pays for, so they count in outputTokens.
 * Tool-use prompt tokens are input the model read. An absent or unreadable block is no usage:
 * the answer is still good, and the gateway then estimates and says so.
 */
export function readUsage(value: unknown): ReportedUsage | undefined {
  if (!isRecord(value)) return undefined;
  const counts: Partial<Record<(typeof USAGE_FIELDS)[number], number>> = {};
  for (const field of USAGE_FIELDS) {
    const n = value[field];
    if (n === undefined) continue;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) return undefined;
    counts[field] = n;
  }
  const { promptTokenCount: prompt, candidatesTokenCount: candidates, thoughtsTokenCount: thoughts } = counts;
  if (prompt === undefined && candidates === undefined) return undefined;
  const usage: ReportedUsage = {
    inputTokens: (prompt ?? 0) + (counts.toolUsePromptTokenCount ?? 0),
    outputTokens: (candidates ?? 0) + (thoughts ?? 0),
  };
  if (counts.cachedContentTokenCount !== undefined) usage.cacheReadTokens = counts.cachedContentTokenCount;
  if (thoughts !== undefined) usage.reasoningTokens = thoughts;
  return usage;
}

function readContent(content: unknown, slot: ProviderSlot): { text: string; calls: ReadFunctionCall[] } {
  let text = '';
  const calls: ReadFunctionCall[] = [];
  // A candidate stopped by a filter (or by MAX_TOKENS while thinking) may have no content.
  if (content === undefined) return { text, calls };
  if (!isRecord(content)) throw invalid(slot, 'candidate content is not an object');
  const parts = content['parts'];
  if (parts === undefined) return { text, calls };
  if (!Array.isArray(parts)) throw invalid(slot, 'content parts is not an array');
  for (const part of parts) {
    if (!isRecord(part)) throw invalid(slot, 'content part is not an object');
    const call = readFunctionCallPart(part, slot);
    if (call !== undefined) calls.push(call);
    const partText = part['text'];
    if (partText === undefined || part['thought'] === true) continue;
    if (typeof partText !== 'string') throw invalid(slot, 'part text is not a string');
    text += partText;
  }
  return { text, calls };
}

function blockReason(feedback: unknown): string | undefined {
  if (!isRecord(feedback)) return undefined;
  const reason = feedback['blockReason'];
  return typeof reason === 'string' && reason !== '' ? reason : undefined;
}

function hasCandidate(body: unknown): boolean {
  return isRecord(body) && Array.isArray(body['candidates']) && body['candidates'].length > 0;
}

export function invalid(slot: ProviderSlot, detail: string): ProviderError {
  return new ProviderError({ slot, failure: 'invalid_response', detail });
}
