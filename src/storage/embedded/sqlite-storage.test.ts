import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  describeStorageContract,
  describeSubscriberContract,
  describeUsagePagingContract,
  describeUsageTotalsContract,
  sampleRecord,
} from '../../../test/contracts/storage-contract.ts';
import { openSqliteStorage } from './sqlite-storage.ts';

describeStorageContract('embedded SQLite (in memory)', async () => openSqliteStorage(':memory:'));
describeUsageTotalsContract('embedded SQLite (in memory)', async () => openSqliteStorage(':memory:'));
describeUsagePagingContract('embedded SQLite (in memory)', async () => openSqliteStorage(':memory:'));
describeSubscriberContract('embedded SQLite (in memory)', async () => openSqliteStorage(':memory:'));

describe('embedded SQLite on disk', () => {
  it('keeps records across reopening, and migrations run once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlite-'));
    const first = openSqliteStorage(dir);
    await first.apps.createApp('web', 'h', 1);
    await first.usage.appendBatch([sampleRecord('kept')]);
    await first.close();
    const second = openSqliteStorage(dir);
    assert.equal((await second.apps.findApp('web'))?.secretHash, 'h');
    assert.equal((await second.usage.readRecords({ limit: 10 }))[0]?.id, 'kept');
    await second.close();
  });
});
