import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RelayedMessageBuilder } from '../../providers/relayed-message-builder.ts';
import { replayRelayedMessage } from './replay-relayed-message.ts';

const MESSAGE = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-x',
  content: [
    { type: 'thinking', thinking: 'Hmm.', signature: 'c2ln' },
    { type: 'redacted_thinking', data: 'RW5j' },
    { type: 'text', text: 'Hello', citations: [{ type: 'char_location', cited_text: 'x' }] },
    { type: 'text', text: 'Plain.', citations: null },
    { type: 'tool_use', id: 't1', name: 'Read', input: { path: '/a' } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 9, cache_read_input_tokens: 100, output_tokens: 30 },
};

async function framesOf(
  text: string,
  usage?: { start: unknown; delta: unknown },
): Promise<{ event: string; data: any }[]> {
  const frames: { event: string; data: any }[] = [];
  for await (const frame of replayRelayedMessage(text, usage)) {
    const [eventLine, dataLine] = frame.trimEnd().split('\n');
    frames.push({
      event: String(eventLine).slice('event: '.length),
      data: JSON.parse(String(dataLine).slice('data: '.length)),
    });
  }
  return frames;
}

describe('replayRelayedMessage', () => {
  it('writes a Message as the stream that rebuilds it, cost_usd 0 on message_delta', async () => {
    const frames = await framesOf(JSON.stringify(MESSAGE));
    assert.deepEqual(
      frames.map((frame) => frame.event).filter((event, n, all) => all[n - 1] !== event),
      [
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'content_block_start',
        'content_block_stop',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    );
    for (const frame of frames) assert.equal(frame.data.type, frame.event);
    const delta = frames.find((frame) => frame.event === 'message_delta')?.data;
    assert.equal(delta.usage.cost_usd, 0);
    const builder = new RelayedMessageBuilder(1_000_000);
    for (const frame of frames) {
      const data = { ...frame.data };
      if (frame.event === 'message_delta') delete data.usage.cost_usd;
      builder.add(frame.event, JSON.stringify(data));
    }
    assert.deepEqual(JSON.parse(builder.message() ?? 'null'), MESSAGE);
  });

  it('says a kept stream’s counts in the events that said them', async () => {
    const usage = { start: { input_tokens: 9, output_tokens: 1 }, delta: { output_tokens: 30 } };
    const frames = await framesOf(JSON.stringify(MESSAGE), usage);
    assert.deepEqual(frames[0]?.data.message.usage, usage.start);
    assert.deepEqual(frames.find((frame) => frame.event === 'message_delta')?.data.usage, {
      output_tokens: 30,
      cost_usd: 0,
    });
  });
});
