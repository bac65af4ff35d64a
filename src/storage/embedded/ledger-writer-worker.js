// The embedded usage ledger's writer thread (see ledger-writer.ts). Plain JavaScript on purpose:
// a worker that imported TypeScript would load its own copy of Node's type stripper (~15 MB).
// It receives rows already in column order and only runs the INSERTs, and retention's deletes.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import { deleteOldestRequests, deleteRollupBuckets } from './delete-ledger-before.js';
import { LedgerBatchWriter } from './write-ledger-batch.js';

const { file, requestInsert, attemptInsert } = workerData;
const db = new DatabaseSync(file);
// The same settings as the main connection (journal_mode is a property of the file).
db.exec('PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
const batches = new LedgerBatchWriter(db, requestInsert, attemptInsert);

parentPort.on('message', ({ id, batch, deleteBefore, deleteRollups }) => {
  try {
    if (deleteBefore !== undefined) {
      parentPort.postMessage({ id, ok: true, deleted: deleteOldestRequests(db, deleteBefore) });
      return;
    }
    if (deleteRollups !== undefined) {
      deleteRollupBuckets(db, deleteRollups);
      parentPort.postMessage({ id, ok: true });
      return;
    }
    batches.write(batch);
    parentPort.postMessage({ id, ok: true });
  } catch (error) {
    parentPort.postMessage({
      id,
      ok: false,
      message: error instanceof Error ? error.message : String(error),
    });
  }
});
