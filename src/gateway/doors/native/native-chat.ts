import type { Static } from 'typebox';
import { KEEP_ALIVE_COMMENT } from '../../http/write-event-stream.ts';
import { type ChatDoor, type DoorChatRequest, NO_HEADERS } from '../chat-door.ts';
import type { ChatRequest } from './native-schemas.ts';
import { toNativeEvents } from './to-native-events.ts';

/**
 * POST /v1/chat, the seed's own API, as a door like the others. The body (validated by its
 * schema before the handler runs) is the chat use case's input as it is, addressing included, so
 * a tool fault's pointers already name the client's fields. The answer is the ChatResponse,
 * which the route's serializer writes with the contract's fields only.
 */
export const NATIVE_CHAT: ChatDoor<DoorChatRequest> = {
  frontDoor: 'native',
  read(body) {
    const chat = body as Static<typeof ChatRequest>;
    return { use: 'chat', input: chat, stream: chat.stream === true, metadata: chat.metadata };
  },
  renameFault: (error) => error,
  headers: () => NO_HEADERS,
  answer: (answer) => ({ headers: NO_HEADERS, body: answer }),
  frames: (stream) => toNativeEvents(stream),
  keepAlive: KEEP_ALIVE_COMMENT,
};
