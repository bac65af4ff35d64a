import { describeBatchStoreContract } from '../../../test/contracts/batch-store-contract.ts';
import { describeUpstreamBatchStoreContract } from '../../../test/contracts/upstream-batch-store-contract.ts';
import { createTestSchema } from '../../../test/helpers/postgres.ts';
import type { Storage } from '../ports.ts';
import { openPostgresStorage } from './pg-storage.ts';

async function openInTestSchema(): Promise<Storage> {
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

describeBatchStoreContract('PostgreSQL', openInTestSchema);
describeUpstreamBatchStoreContract('PostgreSQL', openInTestSchema);
