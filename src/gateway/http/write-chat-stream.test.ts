import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { FastifyReply } from 'fastify';
import type { ChatAnswer } from '../services/run-chat.ts';
import type { ChatStream, StreamEvent } from '../services/run-chat-stream.ts';
import { writeChatStream } from './write-chat-stream.ts';

/**
 * A response whose buffer is always full: every write returns false and `drain` follows on a
 * later turn, so the writer waits once per event. Corking is counted, not simulated.
 */
class FullResponse extends EventEmitter {
  destroyed = false;
  ended = false;
  corks = 0;
  readonly written: string[] = [];
  writeHead(): this {
    return this;
  }
  cork(): void {
    this.corks++;
  }
  uncork(): void {
    this.corks--;
  }
  write(chunk: string): boolean {
    this.written.push(chunk);
    setImmediate(() => this.emit('drain'));
    return false;
  }
  end(): void {
    this.ended = true;
  }
}

function replyOver(raw: FullResponse): FastifyReply {
  return { raw, hijack() {}, request: { id: 'req_test' } } as unknown as FastifyReply;
}

async function* deltas(count: number): AsyncGenerator<StreamEvent, void, undefined> {
  for (let n = 0; n < count; n++) yield { event: 'delta', data: { content: `${n} ` } };
  yield { event: 'done', data: {} as ChatAnswer };
}

describe('writeChatStream', () => {
  it('waits for drain at every full buffer without leaving listeners behind, and uncorks before the end', async () => {
    const raw = new FullResponse();
    const stream: ChatStream = {
      start: { id: 'chat_1', provider: 'provider-a', model: 'm' },
      events: deltas(40),
    };
    await writeChatStream(replyOver(raw), stream, 60_000);
    assert.equal(raw.written.length, 1 + 40 + 1, 'start, every delta, done');
    assert.match(raw.written.at(-1) ?? '', /^event: done\n/);
    assert.equal(raw.ended, true);
    assert.equal(raw.corks, 0, 'every cork is released');
    assert.equal(raw.listenerCount('drain'), 0);
    assert.equal(raw.listenerCount('close'), 0);
  });
});
