import { getHeapSpaceStatistics } from 'node:v8';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { letWorkersSizeTheirYoungGeneration } from '../../src/platform/worker-young-generation.ts';

/**
 * Run as `node <npm start's flags> young-generation-probe.ts [clear]`: fills the main thread's
 * young generation, then a worker's (started with a 4 MiB young-generation limit, as the ledger's
 * writer thread is), and prints both sizes in MiB as JSON. With `clear`, the start-up step of
 * src/main.ts runs first. For test/process/worker-young-generation.test.ts.
 */
export const WORKER_YOUNG_LIMIT_MB = 4;

/** Short-lived objects, with enough surviving a scavenge that V8 grows the young generation. */
function churn(): void {
  let kept: { index: number; text: string }[] = [];
  for (let index = 0; index < 3_000_000; index++) {
    kept.push({ index, text: `item ${index}` });
    if (kept.length > 50_000) kept = [];
  }
}

function youngGenerationMb(): number {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  return (space?.space_size ?? Number.NaN) / 2 ** 20;
}

if (isMainThread) {
  if (process.argv[2] === 'clear') letWorkersSizeTheirYoungGeneration();
  churn();
  const main = youngGenerationMb();
  const worker = new Worker(new URL(import.meta.url), {
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_LIMIT_MB, maxOldGenerationSizeMb: 64 },
  });
  worker.once('message', (workerMb: number) => {
    process.stdout.write(`${JSON.stringify({ main, worker: workerMb })}\n`);
  });
} else {
  churn();
  parentPort?.postMessage(youngGenerationMb());
}
