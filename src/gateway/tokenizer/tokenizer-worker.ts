// The tokenizer's thread (see tokenizer-thread.ts). Loading o200k's tables (the import below)
// and all tokenizing happen here, off the gateway's event loop. Calls interleave: the algorithm
// yields every few thousand characters, and the next message is read meanwhile, so a 4 MiB
// prompt does not hold up a short one.
import { parentPort } from 'node:worker_threads';
import { reclaimStartUpMemory } from '../../platform/reclaim-start-up-memory.ts';
import { cutAnswer } from '../domain/answer-cut.ts';
import { countTokens } from '../domain/encoding-tokenizer.ts';
import { o200kEncoding } from './o200k-encoding.ts';
import type { TokenizerReply, TokenizerRequest } from './tokenizer-protocol.ts';

if (parentPort === null) throw new Error('tokenizer-worker runs as a worker thread');
const port = parentPort;
const encoding = o200kEncoding();
// Building the tables leaves their garbage and a young generation grown to its maximum, which an
// idle thread never gives back: with --expose-gc (npm start) one collection now does, 17 MiB of
// RSS, before the first answer (it is the first call that waits for it, not the event loop).
reclaimStartUpMemory();

let outbox: TokenizerReply[] = [];
port.on('message', (requests: TokenizerRequest[]) => {
  for (const request of requests) {
    void answer(request).then((reply) => {
      if (outbox.length === 0) queueMicrotask(flush);
      outbox.push(reply);
    });
  }
});

function flush(): void {
  const replies = outbox;
  outbox = [];
  port.postMessage(replies);
}

async function answer(request: TokenizerRequest): Promise<TokenizerReply> {
  try {
    const value =
      request.op === 'count'
        ? await countTokens(encoding, request.texts)
        : await cutAnswer(encoding, request.content, request.limits);
    return { id: request.id, ok: true, value };
  } catch (error) {
    return { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
