import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventSourceMessage } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import { EventStreamHandler, type OpenedStream } from './event-stream-handler.ts';

/** Drives the handler as undici would, with a small event limit; records what it asked of the connection. */
function harness(eventChars = 64) {
  const aborts: Error[] = [];
  const controller = {
    paused: false,
    abort: (reason: Error) => {
      aborts.push(reason);
    },
  } as unknown as Dispatcher.DispatchController;
  let opened: OpenedStream | undefined;
  const handler = new EventStreamHandler(
    {
      successBytes: 1024,
      errorBytes: 64,
      tooLarge: (limit) => new Error(`larger than ${limit}`),
      eventChars,
      eventTooLarge: (limit) => new Error(`event larger than ${limit}`),
    },
    (status) => status >= 300,
    {
      open: (value) => {
        opened = value;
      },
      fail: (error) => assert.fail(`did not open: ${String(error)}`),
      mapError: (error) => error as Error,
    },
  );
  let settled = 0;
  handler.onSettled = () => settled++;
  handler.onRequestStart(controller);
  handler.onResponseStart(controller, 200, { 'content-type': 'text/event-stream' });
  assert.equal(opened?.kind, 'events');
  const feedBytes = (bytes: Buffer) => handler.onResponseData(controller, bytes);
  const feed = (text: string) => feedBytes(Buffer.from(text));
  return { handler, feed, feedBytes, aborts, settled: () => settled };
}

/** Reads events until the stream ends or fails. */
async function readAll(handler: EventStreamHandler): Promise<{ events: string[]; error?: Error }> {
  const events: string[] = [];
  try {
    for (;;) {
      const next: IteratorResult<EventSourceMessage> = await handler.next();
      if (next.done) return { events };
      events.push(next.value.data);
    }
  } catch (error) {
    return { events, error: error as Error };
  }
}

describe('EventStreamHandler', () => {
  it('hands over the events of a stream split anywhere, a character split across chunks included', async () => {
    const h = harness();
    const euro = Buffer.from('data: {"c":"€"}\n\n');
    h.feedBytes(euro.subarray(0, 14));
    h.feedBytes(euro.subarray(14));
    h.feed('data: two\n');
    h.feed('\ndata: [DONE]\n\n');
    h.handler.onResponseEnd();
    assert.deepEqual(await readAll(h.handler), { events: ['{"c":"€"}', 'two', '[DONE]'] });
    assert.equal(h.settled(), 1);
    assert.deepEqual(h.aborts, []);
  });

  it('fails the stream and drops the connection when a line never ends', async () => {
    const h = harness(64);
    h.feed('data: ok\n\n');
    h.feed(`data: ${'x'.repeat(40)}`);
    h.feed('x'.repeat(40));
    // Nothing more is read once it has failed.
    h.feed('\n\ndata: late\n\n');
    h.handler.onResponseEnd();
    const read = await readAll(h.handler);
    assert.deepEqual(read.events, ['ok']);
    assert.equal(read.error?.message, 'event larger than 64');
    assert.equal(h.aborts[0]?.message, 'event larger than 64');
    assert.equal(h.settled(), 1);
  });

  it('fails an event whose data lines together pass the limit, and keeps events that stay under it', async () => {
    const h = harness(64);
    h.feed(`data: ${'a'.repeat(30)}\ndata: ${'b'.repeat(30)}\n\n`);
    h.feed(`data: ${'c'.repeat(30)}\ndata: ${'d'.repeat(30)}\ndata: ${'e'.repeat(30)}\n\n`);
    h.handler.onResponseEnd();
    const read = await readAll(h.handler);
    assert.deepEqual(read.events, [`${'a'.repeat(30)}\n${'b'.repeat(30)}`]);
    assert.equal(read.error?.message, 'event larger than 64');
  });
});
