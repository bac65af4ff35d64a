import { describeBatchStoreContract } from '../../../test/contracts/batch-store-contract.ts';
import { createTestSchema } from '../../../test/helpers/postgres.ts';
import { openPostgresStorage } from './pg-storage.ts';

describeBatchStoreContract('PostgreSQL', async () => {
  const schema = await createTestSchema();
  const storage = await openPostgresStorage(schema.url);
  return {
    ...storage,
    close: async () => {
      await storage.close();
      await schema.drop();
    },
  };
});
