import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { FastifyReply } from 'fastify';
import { sumUsage } from '../domain/usage.ts';
import { toNativeEvents } from '../doors/native/to-native-events.ts';
import type { ChatAnswer } from '../services/use-cases/run-chat.ts';
import type { ChatStream, StreamEvent } from '../services/use-cases/run-chat-stream.ts';
import { writeEventStream } from './write-event-stream.ts';

/**
 * A stand-in response that records what is written and when: with `full`, every write returns
 * false and `drain` follows on a later turn, so the writer has to wait.
 */
class RecordingResponse extends EventEmitter {
  destroyed = false;
  ended: string | undefined;
  /** Writes made while a `drain` was still owed: the writer should have waited. */
  overruns = 0;
  #drainOwed = false;
  readonly written: string[] = [];
  readonly full: boolean;
  readonly log: string[];
  constructor(full: boolean, log: string[] = []) {
    super();
    this.full = full;
    this.log = log;
  }
  writeHead(): this {
    return this;
  }
  write(chunk: string): boolean {
    this.written.push(chunk);
    this.log.push(`write ${chunk.length}`);
    if (this.#drainOwed) this.overruns++;
    if (this.full) {
      this.#drainOwed = true;
      setImmediate(() => {
        this.#drainOwed = false;
        this.emit('drain');
      });
    }
    return !this.full;
  }
  end(chunk: string): void {
    this.ended = chunk;
  }
}

function replyOver(raw: RecordingResponse): FastifyReply {
  return { raw, hijack() {}, request: { id: 'req_test' } } as unknown as FastifyReply;
}

const start = { id: 'chat_1', provider: 'provider-a', model: 'm' };

/** Every event at once, as from an upstream that answered in one read. */
async function* burst(count: number): AsyncGenerator<StreamEvent, void, undefined> {
  for (let n = 0; n < count; n++) yield { event: 'delta', data: { content: `${n} ` } };
  yield { event: 'done', data: { usage: sumUsage([]) } as ChatAnswer };
}

/** One event per turn of the event loop, as from an upstream that sends chunks apart. */
async function* spaced(count: number, log: string[]): AsyncGenerator<StreamEvent, void, undefined> {
  for (let n = 0; n < count; n++) {
    await new Promise((resolve) => setImmediate(resolve));
    log.push(`delta ${n}`);
    yield { event: 'delta', data: { content: `${n} ` } };
  }
  await new Promise((resolve) => setImmediate(resolve));
  yield { event: 'done', data: { usage: sumUsage([]) } as ChatAnswer };
}

const eventNames = (text: string) => [...text.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);

/** The native API's stream, as the native door writes it. */
function writeChatStream(reply: FastifyReply, stream: ChatStream, keepAliveMs: number): Promise<void> {
  return writeEventStream(reply, toNativeEvents(stream), keepAliveMs);
}

describe('writeEventStream', () => {
  it('writes an answer that arrives at once in a single end(): start, every delta in order, done', async () => {
    const raw = new RecordingResponse(false);
    await writeChatStream(replyOver(raw), { start, events: burst(5) }, 60_000);
    assert.deepEqual(raw.written, []);
    assert.deepEqual(eventNames(raw.ended ?? ''), [
      'start',
      'delta',
      'delta',
      'delta',
      'delta',
      'delta',
      'done',
    ]);
    assert.deepEqual(
      [...(raw.ended ?? '').matchAll(/"content":"(\d) "/g)].map((match) => match[1]),
      ['0', '1', '2', '3', '4'],
    );
  });

  it('writes each delta in the turn it arrives, before the next one exists, and the last event with end()', async () => {
    const log: string[] = [];
    const raw = new RecordingResponse(false, log);
    await writeChatStream(replyOver(raw), { start, events: spaced(3, log) }, 60_000);
    // The start event leaves on its own turn; then each delta is written before the next is made.
    assert.deepEqual(
      log.map((entry) => entry.split(' ')[0]),
      ['write', 'delta', 'write', 'delta', 'write', 'delta', 'write'],
    );
    assert.deepEqual(raw.written.map(eventNames), [['start'], ['delta'], ['delta'], ['delta']]);
    assert.deepEqual(eventNames(raw.ended ?? ''), ['done']);
  });

  it('waits for drain whenever the client is behind, without leaving listeners behind', async () => {
    const raw = new RecordingResponse(true);
    await writeChatStream(replyOver(raw), { start, events: spaced(40, []) }, 60_000);
    assert.equal(raw.written.length, 1 + 40, 'start, then every delta');
    assert.equal(raw.overruns, 0, 'nothing is written while a drain is owed');
    assert.deepEqual(eventNames(raw.ended ?? ''), ['done']);
    assert.equal(raw.listenerCount('drain'), 0);
    assert.equal(raw.listenerCount('close'), 0);
  });
});
