import { KEEP_ALIVE_COMMENT } from '../../http/write-event-stream.ts';
import { type ChatDoor, NO_HEADERS } from '../chat-door.ts';
import { costHeader } from '../cost-header.ts';
import type { OpenAIChatBody } from './openai-schemas.ts';
import { type CompletionRequest, readCompletionRequest } from './read-completion-request.ts';
import { renameOpenAIFault } from './rename-openai-fault.ts';
import { ChunkEncoder, toOpenAIChunks } from './to-openai-chunks.ts';
import { toOpenAICompletion } from './to-openai-completion.ts';

/** Unix seconds, the same on every chunk of an answer: when the request arrived. */
const createdOf = (receivedAt: number) => Math.floor(receivedAt / 1000);

/**
 * POST /v1/chat/completions (CONTRACT 4.2): OpenAI's Chat Completions onto the chat use case (or
 * the JSON one, for `response_format`), answered as `chat.completion` or its chunks, with the
 * cost in `x-gateway-cost-usd` (a stream: in the usage chunk).
 */
export const OPENAI_CHAT: ChatDoor<CompletionRequest> = {
  frontDoor: 'openai',
  read: (body) => readCompletionRequest(body as OpenAIChatBody),
  renameFault: renameOpenAIFault,
  headers: () => NO_HEADERS,
  answer: (answer, _request, context) => ({
    headers: costHeader(answer.usage),
    body: toOpenAICompletion(answer, createdOf(context.receivedAt)),
  }),
  frames(stream, request, context) {
    const encoder = new ChunkEncoder({
      id: stream.start.id,
      model: stream.start.model,
      created: createdOf(context.receivedAt),
      includeUsage: request.includeUsage,
    });
    return toOpenAIChunks(stream.events, encoder);
  },
  keepAlive: KEEP_ALIVE_COMMENT,
};
