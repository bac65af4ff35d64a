import { encodeEvent } from '../../../platform/sse.ts';
import type { ChatStream } from '../../services/use-cases/run-chat-stream.ts';
import { nativeChatAnswer, nativeStart } from './native-chat-answer.ts';

/**
 * A chat stream as the native API's server-sent events: `start`, `delta` and `tool_call`…, then
 * `done` or `error`, always the last, which is the generator's return value (the writer sends it
 * with the end of the response).
 */
export async function* toNativeEvents(stream: ChatStream): AsyncGenerator<string, string, undefined> {
  yield encodeEvent('start', nativeStart(stream.start));
  for await (const event of stream.events) {
    if (event.event === 'done') return encodeEvent('done', nativeChatAnswer(event.data));
    // The native stream's events are the contract's: thinking is not one of them.
    if (event.event === 'thinking') continue;
    const frame = encodeEvent(event.event, event.data);
    if (event.event === 'error') return frame;
    yield frame;
  }
  return '';
}
