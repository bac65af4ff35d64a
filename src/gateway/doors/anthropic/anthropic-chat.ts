import { encodeEvent } from '../../../platform/sse.ts';
import type { ChatDoor } from '../chat-door.ts';
import { COST_HEADER, formatCost } from '../cost-header.ts';
import { type MessagesRequest, readMessagesRequest } from './read-messages-request.ts';
import { renameAnthropicFault } from './rename-anthropic-fault.ts';
import { type SseMessage, toAnthropicEvents } from './to-anthropic-events.ts';
import { toAnthropicMessage } from './to-anthropic-message.ts';

/**
 * POST /v1/messages (CONTRACT 4.2): Anthropic's Messages onto the chat use case, answered as a
 * Message or Anthropic's event sequence, with the request id in `request-id` as Anthropic sends
 * it and the cost in `x-gateway-cost-usd` (a stream: in `message_delta`'s usage). An idle stream
 * gets Anthropic's own keep-alive, a `ping` event, which its SDK skips.
 */
export const ANTHROPIC_CHAT: ChatDoor<MessagesRequest> = {
  frontDoor: 'anthropic',
  read: readMessagesRequest,
  renameFault: renameAnthropicFault,
  headers: (context) => ({ 'request-id': context.requestId }),
  answer: (answer, request) => ({
    headers: { [COST_HEADER]: formatCost(answer.usage) },
    body: toAnthropicMessage(answer, request.singleToolCall),
  }),
  frames: (stream, request) =>
    toFrames(toAnthropicEvents(stream.start, stream.events, request.singleToolCall)),
  keepAlive: encodeEvent('ping', { type: 'ping' }),
};

async function* toFrames(
  events: AsyncGenerator<SseMessage, void, undefined>,
): AsyncGenerator<string, string, undefined> {
  for await (const message of events) yield encodeEvent(message.event, message.data);
  return '';
}
