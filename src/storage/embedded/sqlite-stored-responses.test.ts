import { describeStoredResponsesContract } from '../../../test/contracts/stored-responses-contract.ts';
import { openSqliteStorage } from './sqlite-storage.ts';

describeStoredResponsesContract('embedded SQLite (in memory)', async () => openSqliteStorage(':memory:'));
