import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sampleRecord } from '../../../test/contracts/storage-contract.ts';
import { REQUEST_COLUMNS } from '../usage-rows.ts';
import { openSqlite } from './open-sqlite.ts';
import { ATTEMPT_INSERT, ledgerBatchOf, REQUEST_INSERT } from './sqlite-usage-ledger.ts';
import { LedgerBatchWriter } from './write-ledger-batch.js';

// The batch format's own checks; what a well-formed batch writes is the storage contract's.
describe('LedgerBatchWriter', () => {
  const countRows = (db: ReturnType<typeof openSqlite>, table: string) =>
    Number((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);

  const batchOf = (ids: string[]) => ledgerBatchOf(ids.map((id) => sampleRecord(id)));

  it('writes a batch whose arrays agree with its counts', () => {
    const db = openSqlite(':memory:');
    const batch = batchOf(['a', 'b', 'c']);
    new LedgerBatchWriter(db, REQUEST_INSERT, ATTEMPT_INSERT).write(batch);
    assert.equal(countRows(db, 'usage_requests'), 3);
    assert.equal(
      countRows(db, 'usage_attempts'),
      batch.attemptCounts.reduce((a, b) => a + b, 0),
    );
    db.close();
  });

  it('refuses, writing nothing, a batch whose values do not fill its rows', () => {
    const db = openSqlite(':memory:');
    const writer = new LedgerBatchWriter(db, REQUEST_INSERT, ATTEMPT_INSERT);
    const shortRequest = batchOf(['a', 'b']);
    shortRequest.requests.pop();
    assert.throws(
      () => writer.write(shortRequest),
      new RegExp(`values for 2 rows of ${REQUEST_COLUMNS.length} columns`),
    );
    const extraAttempt = batchOf(['a', 'b']);
    extraAttempt.attemptCounts[0] = (extraAttempt.attemptCounts[0] ?? 0) + 1;
    assert.throws(() => writer.write(extraAttempt), /usage ledger batch/);
    assert.equal(countRows(db, 'usage_requests'), 0);
    assert.equal(db.isTransaction, false);
    db.close();
  });
});
