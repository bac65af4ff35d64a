import { KEEP_ALIVE_COMMENT } from '../../http/write-event-stream.ts';
import type { ChatDoor } from '../chat-door.ts';
import { costHeader } from '../cost-header.ts';
import { type ResponsesRequest, readResponsesRequest } from './read-responses-request.ts';
import { renameResponsesFault } from './rename-responses-fault.ts';
import { toResponseEvents } from './to-response-events.ts';
import {
  endOf,
  outputItems,
  responseIdOf,
  toResponseUsage,
  withReasoningToken,
} from './to-response-output.ts';
import { toResponseResource } from './to-response-resource.ts';

/** The header naming the hosted tool types left out of the upstream request (CONTRACT 5.4, 5.9). */
export const IGNORED_TOOLS_HEADER = 'x-gateway-ignored-tools';

/** Unix seconds: when the request arrived. */
const secondsOf = (epochMs: number) => Math.floor(epochMs / 1000);

/**
 * What becomes of a finished Response: kept for the app when the request said `store: true`. A
 * stream's last event waits for it; a whole answer's bytes wait for it in the door's `onSend`.
 */
export type KeepResponse = (
  request: ResponsesRequest,
  response: Record<string, unknown>,
) => Promise<void> | undefined;

/**
 * POST /v1/responses (CONTRACT 5.4): OpenAI's Responses API onto the chat use case (or the JSON
 * one, for `text.format` json_schema / json_object), answered as a Response object or its event
 * stream, with the cost in `x-gateway-cost-usd` (a stream: the usage of `response.completed`
 * has the tokens; the cost is in the ledger) and the hosted tools left out in
 * `x-gateway-ignored-tools`.
 */
export function responsesChat(keep: KeepResponse): ChatDoor<ResponsesRequest> {
  return {
    frontDoor: 'responses',
    read: readResponsesRequest,
    renameFault: renameResponsesFault,
    headers: (_context, request) =>
      request === undefined || request.tools.ignored.length === 0
        ? {}
        : { [IGNORED_TOOLS_HEADER]: request.tools.ignored.join(',') },
    answer(answer, request, context) {
      const id = responseIdOf(answer.id);
      const end = endOf(answer.finishReason);
      const response = toResponseResource(
        {
          id,
          createdAt: secondsOf(context.receivedAt),
          model: answer.model,
          status: end.status,
          completedAt: secondsOf(context.receivedAt + answer.latencyMs),
          incompleteDetails: end.incomplete_details,
          output: outputItems(
            id,
            {
              text: answer.message.content,
              calls: answer.message.toolCalls ?? [],
              thinking: answer.thinking ?? [],
            },
            request.tools.origins,
            end.status,
            withReasoningToken(request),
          ),
          usage: toResponseUsage(answer.usage),
        },
        request.echo,
      );
      keep(request, response);
      return { headers: costHeader(answer.usage), body: response };
    },
    frames: (stream, request, context) =>
      toResponseEvents(
        {
          id: responseIdOf(stream.start.id),
          createdAt: secondsOf(context.receivedAt),
          model: stream.start.model,
        },
        stream.events,
        request,
        (response) => keep(request, response),
      ),
    keepAlive: KEEP_ALIVE_COMMENT,
  };
}
