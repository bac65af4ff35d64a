import type { FastifyReply } from 'fastify';
import { encodeEvent } from '../../../platform/sse.ts';
import { writeEventStream } from '../../http/write-event-stream.ts';
import type { SseMessage } from './to-anthropic-events.ts';

/** Anthropic's own keep-alive, which its SDK skips: a `ping` event rather than a comment. */
const PING = encodeEvent('ping', { type: 'ping' });

/**
 * Writes Anthropic's event sequence as server-sent events, through the gateway's one stream
 * writer (batching per turn of the event loop, waiting for a slow client, keep-alive). `source`
 * is the service's stream under the translation: it is always returned, so that the run records
 * its usage even when the client left.
 */
export function writeAnthropicStream(
  reply: FastifyReply,
  events: AsyncGenerator<SseMessage, void, undefined>,
  source: AsyncGenerator<unknown, void, undefined>,
  keepAliveMs: number,
  headers: Record<string, string>,
): Promise<void> {
  const withRequestId = { ...headers, 'request-id': String(reply.request.id) };
  return writeEventStream(reply, anthropicFrames(events, source), keepAliveMs, withRequestId, PING);
}

async function* anthropicFrames(
  events: AsyncGenerator<SseMessage, void, undefined>,
  source: AsyncGenerator<unknown, void, undefined>,
): AsyncGenerator<string, string, undefined> {
  try {
    for await (const message of events) yield encodeEvent(message.event, message.data);
  } finally {
    await source.return(undefined);
  }
  return '';
}
