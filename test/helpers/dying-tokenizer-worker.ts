// A tokenizer worker that dies as soon as it receives a request, as one that runs out of memory
// on it would (see killable-tokenizer-worker.ts for one that dies on cue).
import { parentPort } from 'node:worker_threads';

parentPort?.on('message', () => process.exit(1));
