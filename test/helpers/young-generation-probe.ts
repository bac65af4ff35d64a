import { getHeapSpaceStatistics } from 'node:v8';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { letWorkersSizeTheirYoungGeneration } from '../../src/platform/worker-young-generation.ts';

/**
 * Run as `node <npm start's flags> young-generation-probe.ts [clear]`: fills the main thread's
 * young generation, then a worker's (started with a 4 MiB young-generation limit, as the ledger's
 * writer thread is), and prints both sizes in MiB as JSON. With `clear`, the start-up step of
 * src/main.ts runs first. For test/process/worker-young-generation.test.ts.
 *
 * Each size is the median of readings taken between rounds of churn. A single reading is not the
 * size V8 keeps: during a scavenge the new space briefly holds an extra page or a few (readings of
 * 4.25 to 6.25 MiB beside a steady 4 MiB were seen on one machine), and one such reading made the
 * test fail at random.
 */
export const WORKER_YOUNG_LIMIT_MB = 4;

const ROUNDS = 12;

/** Short-lived objects, with enough surviving a scavenge that V8 grows the young generation. */
function churn(objects: number): void {
  let kept: { index: number; text: string }[] = [];
  for (let index = 0; index < objects; index++) {
    kept.push({ index, text: `item ${index}` });
    if (kept.length > 50_000) kept = [];
  }
}

function youngGenerationMb(): number {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  return (space?.space_size ?? Number.NaN) / 2 ** 20;
}

/** 3 million objects in all, with the young generation's size read after each round. */
function settledYoungGenerationMb(): number {
  const readings: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    churn(3_000_000 / ROUNDS);
    readings.push(youngGenerationMb());
  }
  readings.sort((a, b) => a - b);
  return ((readings[ROUNDS / 2 - 1] as number) + (readings[ROUNDS / 2] as number)) / 2;
}

if (isMainThread) {
  if (process.argv[2] === 'clear') letWorkersSizeTheirYoungGeneration();
  const main = settledYoungGenerationMb();
  const worker = new Worker(new URL(import.meta.url), {
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_LIMIT_MB, maxOldGenerationSizeMb: 64 },
  });
  worker.once('message', (workerMb: number) => {
    process.stdout.write(`${JSON.stringify({ main, worker: workerMb })}\n`);
  });
} else {
  parentPort?.postMessage(settledYoungGenerationMb());
}
