import { parsedBody } from '../../../platform/json-thread/deferred-json-body.ts';
import { encodeEvent } from '../../../platform/sse.ts';
import type { ChatDoor } from '../chat-door.ts';
import { costHeader, costHeaderOf } from '../cost-header.ts';
import { JSON_TEXT } from '../serve-run.ts';
import { rawBodyOf } from './raw-messages-body.ts';
import { type MessagesRequest, readMessagesRequest } from './read-messages-request.ts';
import { readRelayBytes } from './read-relay-bytes.ts';
import { renameAnthropicFault } from './rename-anthropic-fault.ts';
import { replayRelayedMessage } from './replay-relayed-message.ts';
import { type SseMessage, toAnthropicEvents } from './to-anthropic-events.ts';
import { toAnthropicMessage } from './to-anthropic-message.ts';
import { toRelayedFrames } from './to-relayed-frames.ts';

/**
 * POST /v1/messages (CONTRACT 4.2): Anthropic's Messages onto the chat use case, answered as a
 * Message or Anthropic's event sequence, with the request id in `request-id` as Anthropic sends
 * it and the cost in `x-gateway-cost-usd` (a stream: in `message_delta`'s usage). An idle stream
 * gets Anthropic's own keep-alive, a `ping` event, which its SDK skips. On an `anthropic` slot
 * the body goes upstream as the client wrote it, read lightly from its bytes (read-relay-bytes.ts), with
 * `anthropic-version` and `anthropic-beta` as sent, and the upstream's answer comes back as it
 * wrote it with the cost added (decision 0019).
 */
export const ANTHROPIC_CHAT: ChatDoor<MessagesRequest> = {
  frontDoor: 'anthropic',
  read: readMessagesRequest,
  renameFault: renameAnthropicFault,
  headers: (context) => ({ 'request-id': context.requestId }),
  answer: (answer, request) => ({
    headers: costHeader(answer.usage),
    body: toAnthropicMessage(answer, request.singleToolCall),
  }),
  frames: (stream, request) =>
    toFrames(toAnthropicEvents(stream.start, stream.events, request.singleToolCall)),
  keepAlive: encodeEvent('ping', { type: 'ping' }),
  passThrough: {
    slotKinds: ['anthropic', 'bedrock', 'vertex'],
    read: (request) => {
      // A body an input guard masked is read (and sent) as the gateway writes it (CONTRACT 6.6).
      // A request with no body has no bytes and no value: `null` is read as the door's 400.
      const bytes = rawBodyOf(request) ?? Buffer.from(JSON.stringify(parsedBody(request)) ?? 'null');
      return { ...readRelayBytes(bytes), bytes };
    },
    bytes: rawBodyOf,
    forwardedHeaders: ['anthropic-version', 'anthropic-beta'],
    outputGuardable: true,
    answer: (text, costUsd) => ({
      headers: costHeaderOf(costUsd),
      body: text,
      contentType: JSON_TEXT,
    }),
    frames: toRelayedFrames,
    replay: replayRelayedMessage,
  },
};

async function* toFrames(
  events: AsyncGenerator<SseMessage, void, undefined>,
): AsyncGenerator<string, string, undefined> {
  for await (const message of events) yield encodeEvent(message.event, message.data);
  return '';
}
