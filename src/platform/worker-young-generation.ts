import { setFlagsFromString } from 'node:v8';

/**
 * `npm start` gives the main thread a young generation of 2 × 16 MiB (`--max-semi-space-size=16`,
 * fewer scavenges under load). V8 applies that flag to every isolate created while it is set and
 * lets it win over a worker's `resourceLimits.maxYoungGenerationSizeMb`, so the ledger's writer
 * thread and the tokenizer's thread, which ask for 4 and 8 MiB, each grew a young generation of
 * 32 MiB as well: up to 28 MiB of peak RSS apiece, for threads whose garbage is short-lived.
 *
 * The flag is read when an isolate's heap is configured. The main thread's heap was configured
 * before any module ran, so clearing the flag now leaves the main thread its 16 MiB semi-spaces
 * and lets each worker created afterwards size its young generation by its own limit.
 * `test/process/worker-young-generation.test.ts` checks both halves under the start flags.
 */
export function letWorkersSizeTheirYoungGeneration(): void {
  // 0 is V8's "not set": heap sizes come from the isolate's constraints (a worker's resourceLimits).
  setFlagsFromString('--max-semi-space-size=0');
}
