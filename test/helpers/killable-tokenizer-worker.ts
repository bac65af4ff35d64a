// The tokenizer's worker (src/gateway/tokenizer/tokenizer-worker.ts) for tests, with a side
// channel: it announces each request it receives, dies on 'die' (as a crash or running out of
// memory would end it), and on 'report' tells the most text it held at once. Imported on the main
// thread, it gives the test's end of that channel (`controlKillableWorkers`).
import { BroadcastChannel, parentPort } from 'node:worker_threads';
import type { TokenizerReply, TokenizerRequest } from '../../src/gateway/tokenizer/tokenizer-protocol.ts';

export const KILLABLE_WORKER_URL = new URL(import.meta.url);
/** A tokenizer worker that dies as soon as it receives a request. */
export const DYING_WORKER_URL = new URL('./dying-tokenizer-worker.ts', import.meta.url);
const CHANNEL = 'killable-tokenizer-worker';

type Signal = { received: number } | { maxHeldChars: number };

if (parentPort !== null) {
  const port = parentPort;
  const channel = new BroadcastChannel(CHANNEL);
  channel.unref();
  const held = new Map<number, number>();
  let heldChars = 0;
  let maxHeldChars = 0;
  // Registered before the real worker's listener, so it sees each request before it is worked on.
  port.on('message', (requests: TokenizerRequest[]) => {
    for (const request of requests) {
      const chars =
        request.op === 'count'
          ? request.texts.reduce((n, text) => n + text.length, 0)
          : request.content.length;
      held.set(request.id, chars);
      heldChars += chars;
      maxHeldChars = Math.max(maxHeldChars, heldChars);
      channel.postMessage({ received: request.id } satisfies Signal);
    }
  });
  const send = port.postMessage.bind(port);
  port.postMessage = (replies: TokenizerReply[]) => {
    for (const reply of replies) {
      heldChars -= held.get(reply.id) ?? 0;
      held.delete(reply.id);
    }
    send(replies);
  };
  channel.onmessage = (event) => {
    const { data } = event as MessageEvent;
    if (data === 'die') process.exit(1);
    if (data === 'report') channel.postMessage({ maxHeldChars } satisfies Signal);
  };
  await import('../../src/gateway/tokenizer/tokenizer-worker.ts');
}

/** The test's end of the channel, to whichever killable worker is running. */
export function controlKillableWorkers() {
  const channel = new BroadcastChannel(CHANNEL);
  const received: number[] = [];
  const waiting = new Set<(signal: Signal) => void>();
  channel.onmessage = (event) => {
    const signal = (event as MessageEvent).data as Signal;
    if ('received' in signal) {
      received.push(signal.received);
    }
    for (const listener of waiting) listener(signal);
  };
  const next = (accept: (signal: Signal) => boolean): Promise<Signal> =>
    new Promise((resolve) => {
      const listener = (signal: Signal) => {
        if (!accept(signal)) return;
        waiting.delete(listener);
        resolve(signal);
      };
      waiting.add(listener);
    });
  return {
    /** Ids of the requests received, by every worker in turn. */
    received,
    /** Resolves when a worker receives a request. */
    nextReceipt: () => next((signal) => 'received' in signal),
    kill: () => channel.postMessage('die'),
    /** The most characters the running worker held at once. */
    async maxHeldChars(): Promise<number> {
      const report = next((signal) => 'maxHeldChars' in signal);
      channel.postMessage('report');
      return ((await report) as { maxHeldChars: number }).maxHeldChars;
    },
    close: () => channel.close(),
  };
}
