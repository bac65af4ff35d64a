// The embedded ledger's reader thread (see ledger-reader.ts). Plain JavaScript, as the writer's
// thread is: a worker that imported TypeScript would load its own copy of Node's type stripper.
// It runs the ledger's read queries on a read-only connection of its own and answers their rows.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

const db = new DatabaseSync(workerData.file, { readOnly: true });
db.exec('PRAGMA busy_timeout = 5000;');

/** Prepared statements by their SQL: the ledger asks a few dozen shapes of question. */
const statements = new Map();
const MAX_STATEMENTS = 256;

function prepared(sql) {
  let statement = statements.get(sql);
  if (statement === undefined) {
    if (statements.size >= MAX_STATEMENTS) statements.clear();
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
}

parentPort.on('message', ({ id, sql, params }) => {
  try {
    parentPort.postMessage({ id, ok: true, rows: prepared(sql).all(...params) });
  } catch (error) {
    // The fields isSqliteUnavailable reads travel with the message, so that a broken or locked
    // file is still told apart from a bad query on the other side.
    parentPort.postMessage({
      id,
      ok: false,
      message: error instanceof Error ? error.message : String(error),
      code: error?.code,
      errcode: error?.errcode,
    });
  }
});
