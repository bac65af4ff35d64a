import assert from 'node:assert/strict';
import type { UsageRecord } from '../../src/storage/ports.ts';
import type { Harness } from './gateway-harness.ts';

/** The ledger row of `requestId`, the recorder flushed first; fails unless there is exactly one. */
export async function onlyLedgerRow(gw: Harness, requestId: string): Promise<UsageRecord> {
  await gw.app.recorder.flush();
  const rows = (await gw.app.storage.usage.readRecords({ limit: 1000 })).filter(
    (row) => row.requestId === requestId,
  );
  assert.equal(rows.length, 1, `one ledger row for ${requestId}`);
  return rows[0] as UsageRecord;
}
