import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeInsightsContract } from '../../../test/contracts/insights-contract.ts';
import {
  describeStorageContract,
  describeSubscriberContract,
  describeUsagePagingContract,
  describeUsageTotalsContract,
} from '../../../test/contracts/storage-contract.ts';
import { createTestSchema } from '../../../test/helpers/postgres.ts';
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
