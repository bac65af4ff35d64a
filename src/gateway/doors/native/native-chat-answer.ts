import type { ResponseUsage } from '../../domain/usage.ts';
import type { ChatAnswer } from '../../services/use-cases/run-chat.ts';
import type { ChatStream } from '../../services/use-cases/run-chat-stream.ts';
import type { UsageBody } from './native-schemas.ts';

/** A chat answer as the native API's ChatResponse has it: the contract's fields only. */
export type NativeChatAnswer = Omit<ChatAnswer, 'stopSequence' | 'thinking' | 'usage'> & { usage: UsageBody };

/**
 * A chat answer as the native API's ChatResponse has it (CONTRACT): without `stopSequence` and the
 * 1-hour share of the cache writes, which only the Anthropic door reports, and without the
 * answer's thinking, which only the Responses door hands out. For the stream's `done`
 * event, which `encodeEvent` writes with JSON.stringify; the plain answer goes through the route's
 * ChatResponse serializer, which writes only the schema's fields.
 */
export function nativeChatAnswer(answer: ChatAnswer): NativeChatAnswer {
  const {
    stopSequence: _reportedByTheAnthropicDoor,
    thinking: _forTheResponsesDoor,
    usage,
    ...native
  } = answer;
  return { ...native, usage: nativeUsage(usage) };
}

/** The native Usage object of an answer's usage. */
export function nativeUsage(usage: ResponseUsage): UsageBody {
  return {
    tokensIn: usage.tokensIn,
    tokensOut: usage.tokensOut,
    estimatedCost: usage.estimatedCost,
    estimated: usage.estimated,
    tokensInCacheRead: usage.tokensInCacheRead,
    tokensInCacheWrite: usage.tokensInCacheWrite,
  };
}

/** The stream's `start` event: what the door translations may carry beside it stays out. */
export function nativeStart(start: ChatStream['start']): { id: string; provider: string; model: string } {
  return { id: start.id, provider: start.provider, model: start.model };
}
