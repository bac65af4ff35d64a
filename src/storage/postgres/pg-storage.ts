import pg from 'pg';
import type { Storage } from '../ports.ts';
import { reportUnavailable } from '../report-unavailable.ts';
import { SqlAppStore } from '../sql-app-store.ts';
import { POSTGRES_CLAIM, SqlBatchStore } from '../sql-batch-store.ts';
import { SqlGovernanceStore } from '../sql-governance-store.ts';
import { numberPlaceholders, SqlLedgerInsights } from '../sql-ledger-insights.ts';
import { PgConnections } from './pg-connections.ts';
import { PgExecutor } from './pg-executor.ts';
import { migratePostgres } from './pg-migrate.ts';
import { PgSessionRevocations } from './pg-session-revocations.ts';
import { STATEMENT_TIMEOUT_MS } from './pg-statement-timeout.ts';
import { PgStoredResponses } from './pg-stored-responses.ts';
import { PgSubscriberStore } from './pg-subscriber-store.ts';
import { PgUsageLedger } from './pg-usage-ledger.ts';
import { isPostgresUnavailable } from './postgres-unavailable.ts';

/** PostgreSQL storage (DATABASE_URL), shared by every gateway instance; migrations apply at start-up. */
export async function openPostgresStorage(url: string): Promise<Storage> {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
    // TCP keepalive on every connection, first probe after 10 s of silence (Node 24 then probes every
    // second, ten times): a connection idle in the pool whose peer went silent (a partition) is
    // given up by the kernel after about 20 s and leaves the pool then, instead of failing a statement
    // once the network is back. Statements keep their own 10 s bound, which comes first.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // Every statement bounded (pg-statement-timeout.ts); migrations and the retention sweep set a longer one.
    query_timeout: STATEMENT_TIMEOUT_MS,
  });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => {});
  const connections = new PgConnections(pool);
  try {
    await migratePostgres(connections);
  } catch (error) {
    await pool.end();
    throw error;
  }
  const executor = new PgExecutor(connections);
  return reportUnavailable(
    {
      apps: new SqlAppStore(executor),
      governance: new SqlGovernanceStore(executor),
      usage: new PgUsageLedger(connections),
      insights: new SqlLedgerInsights(
        async (sql, params) => (await connections.query(numberPlaceholders(sql), [...params])).rows,
      ),
      subscribers: new PgSubscriberStore(connections),
      sessionRevocations: new PgSessionRevocations(connections),
      responses: new PgStoredResponses(connections),
      batches: new SqlBatchStore(executor, POSTGRES_CLAIM),
      ping: async () => {
        await connections.query('SELECT 1');
      },
      close: () => connections.end(),
    },
    isPostgresUnavailable,
  );
}
