/**
 * Bench-only preload (`node --import ./bench/preload-no-ledger.ts dist/main.js`): the embedded
 * ledger accepts every batch without writing it. The gateway has no switch to turn the ledger
 * off, and a ledger on tmpfs or in memory still does all the SQLite work; this removes exactly
 * the writes, and nothing else, so the difference in throughput is what the writes cost.
 * Everything before them (building the record, the recorder's batching) still runs.
 *
 * It patches the class the gateway loads: the built one under dist/ (`npm start` runs that),
 * not the one under src/, which the gateway never imports. Built by the bench before it starts.
 */
const builtLedger = new URL('../dist/storage/embedded/sqlite-usage-ledger.js', import.meta.url).href;
const { SqliteUsageLedger } = (await import(
  builtLedger
)) as typeof import('../src/storage/embedded/sqlite-usage-ledger.ts');
SqliteUsageLedger.prototype.appendBatch = async () => {};
