import { describeBatchStoreContract } from '../../../test/contracts/batch-store-contract.ts';
import { describeUpstreamBatchStoreContract } from '../../../test/contracts/upstream-batch-store-contract.ts';
import { openSqliteStorage } from './sqlite-storage.ts';

describeBatchStoreContract('embedded SQLite (in memory)', async () => openSqliteStorage(':memory:'));
describeUpstreamBatchStoreContract('embedded SQLite (in memory)', async () => openSqliteStorage(':memory:'));
