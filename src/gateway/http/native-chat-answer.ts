import type { ChatAnswer } from '../services/run-chat.ts';

/**
 * A chat answer as the native API's ChatResponse has it (CONTRACT): without `stopSequence`, which
 * only the Anthropic door reports, so the native answer keeps the contract's shape.
 */
export function nativeChatAnswer(answer: ChatAnswer): ChatAnswer {
  if (answer.stopSequence === undefined) return answer;
  const { stopSequence: _reportedByTheAnthropicDoor, ...native } = answer;
  return native;
}
