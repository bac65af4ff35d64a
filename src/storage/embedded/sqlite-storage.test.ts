import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { describeGovernanceContract } from '../../../test/contracts/governance-contract.ts';
import { describeInsightsContract } from '../../../test/contracts/insights-contract.ts';
import {
  assertLegacyRowIsNative,
  LEGACY_USAGE_ROW_SQL,
  migrationsBeforeFrontDoor,
} from '../../../test/contracts/legacy-usage-row.ts';
import {
  describeStorageContract,
  describeSubscriberContract,
  describeUsagePagingContract,
  describeUsageTotalsContract,
  sampleRecord,
} from '../../../test/contracts/storage-contract.ts';
import { MIGRATIONS_TABLE_SQL } from '../migrations.ts';
import { DATABASE_FILE } from './open-sqlite.ts';
import { openSqliteStorage } from './sqlite-storage.ts';

describeStorageContract('embedded SQLite (in memory)', async () => openSqliteStorage(':memory:'));
describeUsageTotalsContract('embedded SQLite (in memory)', async () => openSqliteStorage(':memory:'));
describeUsagePagingContract('embedded SQLite (in memory)', async () => openSqliteStorage(':memory:'));
describeSubscriberContract('embedded SQLite (in memory)', async () => openSqliteStorage(':memory:'));
describeInsightsContract('embedded SQLite (in memory)', async () => openSqliteStorage(':memory:'));
describeGovernanceContract('embedded SQLite (in memory)', async () => openSqliteStorage(':memory:'));

// On disk, usage batches are written by the ledger's writer thread: the same contracts hold.
const onDisk = async () => openSqliteStorage(mkdtempSync(join(tmpdir(), 'sqlite-')));
describeStorageContract('embedded SQLite on disk', onDisk);
describeUsageTotalsContract('embedded SQLite on disk', onDisk);
describeUsagePagingContract('embedded SQLite on disk', onDisk);
describeInsightsContract('embedded SQLite on disk', onDisk);
describeGovernanceContract('embedded SQLite on disk', onDisk);

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

  it('a batch the writer thread cannot commit is rejected whole, and the next one is written', async () => {
    const storage = openSqliteStorage(mkdtempSync(join(tmpdir(), 'sqlite-')));
    // A NOT NULL column left empty fails the INSERT inside the batch's transaction.
    const broken = { ...sampleRecord('broken'), app: null } as unknown as ReturnType<typeof sampleRecord>;
    await assert.rejects(
      storage.usage.appendBatch([sampleRecord('before-broken'), broken]),
      /usage ledger write failed: .*NOT NULL/,
    );
    assert.deepEqual(await storage.usage.readRecords({ limit: 10 }), []);
    await storage.usage.appendBatch([sampleRecord('after')]);
    await storage.usage.appendBatch([sampleRecord('after')]);
    assert.deepEqual(
      (await storage.usage.readRecords({ limit: 10 })).map((record) => record.id),
      ['after'],
    );
    await storage.close();
  });
});

describe('embedded SQLite migration 004 (front door)', () => {
  it('existing usage rows read as the native door', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlite-'));
    const old = new DatabaseSync(join(dir, DATABASE_FILE));
    old.exec(MIGRATIONS_TABLE_SQL);
    for (const migration of migrationsBeforeFrontDoor()) {
      old.exec(migration.sql);
      old
        .prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
        .run(migration.version, migration.name, 0);
    }
    old.exec(LEGACY_USAGE_ROW_SQL);
    old.close();
    const storage = openSqliteStorage(dir);
    await assertLegacyRowIsNative(storage);
    await storage.close();
  });
});
