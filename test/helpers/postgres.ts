import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startTcpRelay, type TcpRelay } from './tcp-relay.ts';

/** The PostgreSQL server of this machine and CI (trust auth, database `test`). */
export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';

/**
 * A fresh schema for one test suite, so suites running in parallel (and earlier runs) never see
 * each other's rows. Returns a DATABASE_URL whose connections use that schema.
 */
export async function createTestSchema(): Promise<{ url: string; drop: () => Promise<void> }> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = `${POSTGRES_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    url,
    drop: async () => {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    },
  };
}

/** A relay in front of this machine's PostgreSQL (tcp-relay.ts), which a test cuts and restores. */
export function startPostgresRelay(): Promise<TcpRelay> {
  const server = new URL(POSTGRES_URL);
  return startTcpRelay({ host: server.hostname, port: Number(server.port || 5432) });
}

/** `url` (POSTGRES_URL or a test schema's) going through `relay` instead of straight to the server. */
export function throughRelay(url: string, relay: TcpRelay): URL {
  const through = new URL(url);
  through.host = `${relay.host}:${relay.port}`;
  return through;
}
