import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStorage } from '../../src/storage/embedded/sqlite-storage.ts';
import { openPostgresStorage } from '../../src/storage/postgres/pg-storage.ts';
import { describeAppCreationRaceContract } from '../contracts/app-creation-race-contract.ts';
import { createTestSchema } from '../helpers/postgres.ts';

describeAppCreationRaceContract('PostgreSQL, two pools', async () => {
  const schema = await createTestSchema();
  const [one, two] = await Promise.all([openPostgresStorage(schema.url), openPostgresStorage(schema.url)]);
  return {
    one,
    two,
    close: async () => {
      await Promise.all([one.close(), two.close()]);
      await schema.drop();
    },
  };
});

// Two connections to one file, as two processes sharing a DATA_DIR have.
describeAppCreationRaceContract('embedded SQLite, two connections to one file', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'app-race-'));
  const one = openSqliteStorage(dataDir);
  const two = openSqliteStorage(dataDir);
  return {
    one,
    two,
    close: async () => {
      await Promise.all([one.close(), two.close()]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
