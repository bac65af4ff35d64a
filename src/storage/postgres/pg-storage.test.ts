import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
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
} from '../../../test/contracts/storage-contract.ts';
import { createTestSchema } from '../../../test/helpers/postgres.ts';
import { MIGRATIONS_TABLE_SQL } from '../migrations.ts';
import { openPostgresStorage } from './pg-storage.ts';

async function openFresh() {
  const schema = await createTestSchema();
  const storage = await openPostgresStorage(schema.url);
  return {
    ...storage,
    close: async () => {
      await storage.close();
      await schema.drop();
    },
  };
}

describeStorageContract('PostgreSQL', openFresh);
describeUsageTotalsContract('PostgreSQL', openFresh);
describeUsagePagingContract('PostgreSQL', openFresh);
describeSubscriberContract('PostgreSQL', openFresh);
describeInsightsContract('PostgreSQL', openFresh);
describeGovernanceContract('PostgreSQL', openFresh);

describe('PostgreSQL migrations', () => {
  it('run once even when several instances start together', async () => {
    const schema = await createTestSchema();
    const stores = await Promise.all([1, 2, 3].map(() => openPostgresStorage(schema.url)));
    await stores[0]?.apps.createApp('once', 'h', 1);
    assert.equal((await stores[2]?.apps.findApp('once'))?.secretHash, 'h');
    await Promise.all(stores.map((s) => s.close()));
    await schema.drop();
  });
});

describe('PostgreSQL migration 004 (front door)', () => {
  it('existing usage rows read as the native door', async () => {
    const schema = await createTestSchema();
    const old = new pg.Client({ connectionString: schema.url });
    await old.connect();
    await old.query(MIGRATIONS_TABLE_SQL);
    for (const migration of migrationsBeforeFrontDoor()) {
      await old.query(migration.sql);
      await old.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        0,
      ]);
    }
    await old.query(LEGACY_USAGE_ROW_SQL);
    await old.end();
    const storage = await openPostgresStorage(schema.url);
    try {
      await assertLegacyRowIsNative(storage);
    } finally {
      await storage.close();
      await schema.drop();
    }
  });
});
