// A JSON thread's worker that dies as soon as it receives a request, as one that runs out of
// memory on a body would (src/platform/json-thread/json-thread.ts).
import { parentPort } from 'node:worker_threads';

parentPort?.on('message', () => process.exit(1));
