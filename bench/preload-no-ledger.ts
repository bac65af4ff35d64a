import { isMainThread, parentPort, workerData } from 'node:worker_threads';

/**
 * Bench-only preload (`node --import ./bench/preload-no-ledger.ts dist/main.js`): the embedded
 * ledger's writer thread acknowledges every batch without writing it. The gateway has no switch
 * to turn the ledger off, and a ledger on tmpfs or in memory still does all the SQLite work; this
 * removes exactly the writes, and nothing else, so the difference in throughput is what the
 * writes cost. Everything before them (building the record, the recorder's batching, handing the
 * batch to the thread) still runs.
 *
 * Node runs `--import` in worker threads too. In the writer's thread (the one whose workerData
 * names the ledger's INSERT statements, src/storage/embedded/ledger-writer.ts), the thread's
 * listener for batches is swapped for one that answers at once; every other thread is untouched.
 * It works on the bundle `npm start` runs, whatever the bundle's layout.
 */
const data = workerData as { file?: unknown; requestInsert?: unknown } | undefined;
const isLedgerWriter =
  !isMainThread && parentPort !== null && typeof data?.file === 'string' && data.requestInsert !== undefined;

if (isLedgerWriter && parentPort !== null) {
  const port = parentPort;
  const on = port.on.bind(port);
  port.on = ((event: string, listener: (...args: unknown[]) => void) =>
    event === 'message'
      ? on('message', ({ id }: { id: number }) => port.postMessage({ id, ok: true }))
      : on(event, listener)) as typeof port.on;
}
