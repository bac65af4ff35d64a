import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatAnswer } from '../../services/use-cases/run-chat.ts';
import type { ChatStream, StreamEvent } from '../../services/use-cases/run-chat-stream.ts';
import { decodeThoughtToken } from './thought-token.ts';
import { toGeminiChunks } from './to-gemini-chunks.ts';

const usage = {
  tokensIn: 10,
  tokensOut: 7,
  estimatedCost: 0.00042,
  estimated: false,
  tokensInCacheRead: 4,
  tokensInCacheWrite: 0,
  tokensInCacheWrite1h: 0,
  tokensOutReasoning: 3,
};

function streamOf(events: StreamEvent[]): ChatStream {
  return {
    start: { id: 'chat_1', provider: 'provider-c', model: 'claude-x' },
    events: (async function* () {
      yield* events;
    })(),
  };
}

async function framesOf(stream: ChatStream, sse: boolean): Promise<string> {
  const frames = toGeminiChunks(stream, { sse });
  let text = '';
  for (;;) {
    const next = await frames.next();
    text += next.value;
    if (next.done) return text;
  }
}

const done = (answer: Partial<ChatAnswer>): StreamEvent => ({
  event: 'done',
  data: {
    id: 'chat_1',
    provider: 'provider-c',
    model: 'claude-x',
    message: { role: 'assistant', content: '' },
    finishReason: 'tool_calls',
    usage,
    latencyMs: 5,
    ...answer,
  },
});

describe('toGeminiChunks', () => {
  it('thought, then the call carrying the thinking token, then the last chunk with usage and cost (SSE)', async () => {
    const text = await framesOf(
      streamOf([
        {
          event: 'thinking',
          data: { type: 'thinking', vendor: 'anthropic', text: 'Plan.', signature: 'sig' },
        },
        { event: 'tool_call', data: { id: 'toolu_1', name: 'f', arguments: '{"a":1}' } },
        done({}),
      ]),
      true,
    );
    const chunks = text
      .split('\r\n\r\n')
      .filter((frame) => frame !== '')
      .map((frame) => JSON.parse(frame.slice('data: '.length)));
    assert.deepEqual(chunks[0].candidates[0].content.parts, [{ text: 'Plan.', thought: true }]);
    const call = chunks[1].candidates[0].content.parts[0];
    assert.deepEqual(call.functionCall, { id: 'toolu_1', name: 'f', args: { a: 1 } });
    assert.deepEqual(decodeThoughtToken(call.thoughtSignature), [
      { type: 'thinking', vendor: 'anthropic', text: 'Plan.', signature: 'sig' },
    ]);
    const last = chunks[2];
    assert.equal(last.candidates[0].finishReason, 'STOP');
    assert.deepEqual(last.usageMetadata, {
      promptTokenCount: 10,
      candidatesTokenCount: 4,
      totalTokenCount: 17,
      cachedContentTokenCount: 4,
      thoughtsTokenCount: 3,
      costUsd: 0.00042,
    });
  });

  it('without alt=sse: one JSON array, closed after an error object too', async () => {
    const text = await framesOf(
      streamOf([
        { event: 'delta', data: { content: 'Hel' } },
        { event: 'error', data: { error: { code: 'upstream_error', message: 'provider-c failed' } } },
      ]),
      false,
    );
    const chunks = JSON.parse(text);
    assert.equal(chunks[0].candidates[0].content.parts[0].text, 'Hel');
    assert.deepEqual(chunks[1], {
      error: { code: 503, message: 'provider-c failed', status: 'UNAVAILABLE' },
    });
    assert.deepEqual(JSON.parse(await framesOf(streamOf([]), false)), []);
  });
});
