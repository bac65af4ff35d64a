import type { ChatAnswer } from '../../services/run-chat.ts';

/**
 * A chat answer as the native API's ChatResponse has it (CONTRACT): without `stopSequence`, which
 * only the Anthropic door reports. For the stream's `done` event, which `encodeEvent` writes with
 * JSON.stringify; the plain answer goes through the route's ChatResponse serializer, which writes
 * only the schema's fields.
 */
export function nativeChatAnswer(answer: ChatAnswer): ChatAnswer {
  if (answer.stopSequence === undefined) return answer;
  const { stopSequence: _reportedByTheAnthropicDoor, ...native } = answer;
  return native;
}
