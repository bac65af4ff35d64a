import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { geminiFixture, geminiJsonFixture } from '../../../../test/helpers/mock-gemini-server.ts';
import type { ChatStreamEvent } from '../provider.ts';
import type { ProviderError } from '../provider-error.ts';
import { fromGeminiStream } from './from-gemini-stream.ts';

const SLOT = 'provider-c';

/** SSE text to events with the parser the HTTP client uses. */
async function* sse(text: string): AsyncIterable<EventSourceMessage> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(text);
  yield* events;
}

function dataEvents(...chunks: unknown[]): string {
  return chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join('');
}

async function collect(text: string, model = 'gemini-2.5-flash'): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of fromGeminiStream(sse(text), model, SLOT)) events.push(event);
  return events;
}

describe('fromGeminiStream', () => {
  it('translates the recorded alt=sse stream: model, deltas, finish, then the last (cumulative) usage', async () => {
    assert.deepEqual(await collect(geminiFixture('stream-generate-content.sse'), 'models/gemini-2.5-flash'), [
      { type: 'model', model: 'gemini-2.5-flash' },
      { type: 'delta', content: 'Paris is the capital' },
      { type: 'delta', content: ' of France, known for the Eiffel Tower' },
      { type: 'delta', content: ' and the Louvre.' },
      { type: 'finish', reason: 'stop' },
      { type: 'usage', usage: { inputTokens: 9, outputTokens: 17 + 437, reasoningTokens: 437 } },
    ]);
  });

  it('skips thought parts and falls back to the requested model', async () => {
    const events = await collect(
      dataEvents(
        {
          candidates: [{ content: { role: 'model', parts: [{ text: 'Thinking about it', thought: true }] } }],
        },
        {
          candidates: [
            { content: { role: 'model', parts: [{ text: 'Paris.' }] }, finishReason: 'MAX_TOKENS' },
          ],
          usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 2, thoughtsTokenCount: 8 },
        },
      ),
      'models/gemini-2.5-pro',
    );
    assert.deepEqual(events, [
      { type: 'model', model: 'gemini-2.5-pro' },
      { type: 'delta', content: 'Paris.' },
      { type: 'finish', reason: 'length' },
      { type: 'usage', usage: { inputTokens: 4, outputTokens: 10, reasoningTokens: 8 } },
    ]);
  });

  it('ends a blocked prompt with content_filter and no text', async () => {
    const events = await collect(dataEvents(geminiJsonFixture('generate-content-blocked.json')));
    assert.deepEqual(
      events.map((e) => e.type),
      ['model', 'finish', 'usage'],
    );
    assert.deepEqual(events[1], { type: 'finish', reason: 'content_filter' });
  });

  it('raises an error event before any text as the mapped ProviderError, without a model event first', async () => {
    const events: ChatStreamEvent[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of fromGeminiStream(
          sse(dataEvents(geminiJsonFixture('error-503-unavailable.json'))),
          'm',
          SLOT,
        )) {
          events.push(event);
        }
      })(),
      (e: ProviderError) =>
        e.failure === 'http' && e.status === 503 && e.retryable && !e.message.includes('overloaded'),
    );
    assert.deepEqual(events, []);
  });

  it('fails a stream that stops without a finish reason (cut short)', async () => {
    const first = geminiFixture('stream-generate-content.sse').split('\r\n\r\n')[0];
    const events: ChatStreamEvent[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of fromGeminiStream(sse(`${first}\r\n\r\n`), 'm', SLOT)) events.push(event);
      })(),
      (e: ProviderError) => e.failure === 'connection',
    );
    assert.deepEqual(
      events.map((e) => e.type),
      ['model', 'delta'],
    );
  });

  it('rejects a chunk that is not JSON or not a response', async () => {
    await assert.rejects(
      collect('data: {not json\r\n\r\n'),
      (e: ProviderError) => e.failure === 'invalid_response',
    );
    await assert.rejects(
      collect(dataEvents({ candidates: 'nope' })),
      (e: ProviderError) => e.failure === 'invalid_response',
    );
  });
});
