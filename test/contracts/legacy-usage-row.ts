import assert from 'node:assert/strict';
import { type Migration, readMigrations } from '../../src/storage/migrations.ts';
import type { Storage } from '../../src/storage/ports.ts';

/** The migration that added `front_door`: a ledger written before it has the ones below. */
export const FRONT_DOOR_MIGRATION = 4;

export function migrationsBeforeFrontDoor(): Migration[] {
  // The migrations before it are the same files for both engines.
  return readMigrations('sqlite').filter((migration) => migration.version < FRONT_DOOR_MIGRATION);
}

/** A usage row as a gateway without the front doors wrote it: no `front_door` column. */
export const LEGACY_USAGE_ROW_SQL = `INSERT INTO usage_requests (id, request_id, app, operation, task, provider, model,
  tokens_in, tokens_out, usage_estimated, cost_usd, price_source, latency_ms, upstream_first_byte_ms, upstream_ms,
  status, error_code, created_at)
  VALUES ('legacy', 'req-legacy', 'web', 'chat', NULL, 'provider-a', 'm', 1, 2, 0, 0.5, NULL, 3, NULL, NULL, 200, NULL,
  1700000000000)`;

/** After the migration, the old row reads and groups as having come through the native door. */
export async function assertLegacyRowIsNative(storage: Storage): Promise<void> {
  const [record] = await storage.usage.readRecords({ limit: 10 });
  assert.equal(record?.id, 'legacy');
  assert.equal(record?.frontDoor, 'native');
  const rows = await storage.usage.totals({ app: 'web', from: 0, to: 2e12, groupBy: ['frontDoor'] });
  assert.deepEqual(
    rows.map((row) => [row.frontDoor, row.requests]),
    [['native', 1]],
  );
  // The rollups were built from it (005) and rebuilt with the agent round's columns (007).
  const rollup = await storage.insights.totals({
    from: 1_699_999_200_000,
    to: 1_700_003_600_000,
    groupBy: ['frontDoor', 'deployment', 'tool'],
    filters: {},
  });
  assert.deepEqual(
    rollup.map((row) => [row.frontDoor, row.deployment, row.tool, row.requests, row.tokensIn, row.cacheHits]),
    [['native', null, null, 1, 1, 0]],
  );
}
