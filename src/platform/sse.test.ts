import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { encodeComment, encodeEvent } from './sse.ts';

function parse(text: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(text);
  return events;
}

describe('SSE encoder', () => {
  it('round-trips through a real SSE parser, newlines and unicode included', () => {
    const data = { content: 'line one\nline two\r\n— ünïcode 🎉', nested: { a: [1, 2] } };
    const events = parse(encodeEvent('delta', data) + encodeEvent('done', { ok: true }));
    assert.equal(events.length, 2);
    assert.equal(events[0]?.event, 'delta');
    assert.deepEqual(JSON.parse(events[0]?.data ?? ''), data);
    assert.equal(events[1]?.event, 'done');
  });

  it('writes comments that parsers ignore, even with newlines in them', () => {
    const events = parse(`${encodeComment('keep\nalive')}${encodeEvent('start', { id: 'x' })}`);
    assert.deepEqual(
      events.map((e) => e.event),
      ['start'],
    );
  });
});
