import type { Config } from '../../config/config-types.ts';
import type { RpcPeer } from '../../platform/rpc-peer.ts';
import { openStorage } from '../open-storage.ts';
import type { Storage, UsageLedger } from '../ports.ts';
import { coordinatedStorage } from './coordinated-storage.ts';

/**
 * A worker's database (CONTRACT 6.8): the embedded one through the primary, its one writer;
 * PostgreSQL, which takes many writers, directly, as another instance would, telling the primary
 * which rows are written so that it knows which requests still wait for theirs.
 */
export async function openWorkerStorage(config: Config, primary: RpcPeer): Promise<Storage> {
  if (config.databaseUrl === undefined) return coordinatedStorage(primary);
  const storage = await openStorage(config);
  const ledger = storage.usage;
  const usage: UsageLedger = {
    appendBatch: async (records) => {
      await ledger.appendBatch(records);
      primary.notify('runs.written', [records.map((record) => record.id)]);
    },
    readRecords: (query) => ledger.readRecords(query),
    totals: (query) => ledger.totals(query),
    deleteBefore: (cutoff) => ledger.deleteBefore(cutoff),
  };
  return { ...storage, usage };
}
