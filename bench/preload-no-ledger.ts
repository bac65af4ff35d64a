import { SqliteUsageLedger } from '../src/storage/embedded/sqlite-usage-ledger.ts';

/**
 * Bench-only preload (`node --import ./bench/preload-no-ledger.ts src/main.ts`): the embedded
 * ledger accepts every batch without writing it. The gateway has no switch to turn the ledger
 * off, and a ledger on tmpfs or in memory still does all the SQLite work; this removes exactly
 * the writes, and nothing else, so the difference in throughput is what the writes cost.
 * Everything before them (building the record, the recorder's batching) still runs.
 */
SqliteUsageLedger.prototype.appendBatch = async () => {};
