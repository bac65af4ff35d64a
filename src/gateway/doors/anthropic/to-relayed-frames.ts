import { errorStatus } from '../../../platform/errors.ts';
import { encodeEvent } from '../../../platform/sse.ts';
import { addToTopLevelObject } from '../../domain/json-splice.ts';
import type { RelayOut } from '../../services/run/pass-through-stream.ts';
import { toAnthropicErrorBody } from './anthropic-error-body.ts';

/**
 * A relayed stream (the same-vendor lane, CONTRACT 5.2) as server-sent frames: each upstream event
 * with its `event:` name and `data:` as the upstream sent them, except `message_delta`, whose
 * `usage` gains `cost_usd` (the request's cost, CONTRACT 4.2), spliced into its text. A failure the
 * upstream did not announce with an `error` event of its own is written as Anthropic's `error`.
 */
export async function* toRelayedFrames(
  events: AsyncGenerator<RelayOut, void, undefined>,
): AsyncGenerator<string, string, undefined> {
  for await (const out of events) {
    if (out.kind === 'error') {
      yield encodeEvent('error', toAnthropicErrorBody(out.error, errorStatus[out.error.error.code]));
      continue;
    }
    let data = out.data;
    if (out.costUsd !== undefined)
      data = addToTopLevelObject(data, 'usage', 'cost_usd', JSON.stringify(out.costUsd)) ?? data;
    yield relayedFrame(out.event, data);
  }
  return '';
}

/** One event as the upstream framed it; a `data` of several lines keeps them, one `data:` line each. */
export function relayedFrame(event: string, data: string): string {
  const lines = data.includes('\n') ? data.split('\n').join('\ndata: ') : data;
  return `event: ${event}\ndata: ${lines}\n\n`;
}
