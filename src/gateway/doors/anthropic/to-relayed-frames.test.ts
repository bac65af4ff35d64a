import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RelayOut } from '../../services/run/pass-through-stream.ts';
import { relayedFrame, toRelayedFrames } from './to-relayed-frames.ts';

async function framesOf(outs: RelayOut[]): Promise<string> {
  async function* events(): AsyncGenerator<RelayOut, void, undefined> {
    yield* outs;
  }
  let text = '';
  for await (const frame of toRelayedFrames(events())) text += frame;
  return text;
}

describe('toRelayedFrames', () => {
  it('writes each event as it came, adding cost_usd to message_delta’s usage only', async () => {
    const delta = '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}';
    const text = await framesOf([
      {
        kind: 'event',
        event: 'content_block_delta',
        data: '{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}',
      },
      { kind: 'event', event: 'message_delta', data: delta, costUsd: 0.000123 },
    ]);
    assert.equal(
      text,
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}\n\n' +
        'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7,"cost_usd":0.000123}}\n\n',
    );
  });

  it('writes the gateway’s failure as Anthropic’s error event', async () => {
    const text = await framesOf([
      {
        kind: 'error',
        error: { error: { code: 'upstream_error', message: 'provider-a failed during the stream' } },
      },
    ]);
    assert.match(
      text,
      /^event: error\ndata: \{"type":"error","error":\{"type":"api_error","message":"provider-a failed during the stream"\}\}\n\n$/,
    );
  });

  it('keeps a data of several lines as several data lines', () => {
    assert.equal(relayedFrame('x', 'a\nb'), 'event: x\ndata: a\ndata: b\n\n');
  });
});
