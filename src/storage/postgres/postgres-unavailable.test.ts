import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { POSTGRES_URL, startPostgresRelay, throughRelay } from '../../../test/helpers/postgres.ts';
import type { TcpRelay } from '../../../test/helpers/tcp-relay.ts';
import { isPostgresUnavailable } from './postgres-unavailable.ts';

/** The error a query rejects with, from the real server (or the real driver failing to reach it). */
async function errorOf(url: string, sql: string, options: pg.PoolConfig = {}): Promise<unknown> {
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 2_000, ...options });
  pool.on('error', () => {});
  try {
    await pool.query(sql);
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await pool.end().catch(() => {});
  }
}

function through(relay: TcpRelay): string {
  return throughRelay(POSTGRES_URL, relay).toString();
}

describe('isPostgresUnavailable, on errors pg really raises', () => {
  let relay: TcpRelay;
  before(async () => {
    relay = await startPostgresRelay();
  });
  after(() => relay.close());

  it('a refused connection', async () => {
    await relay.cut('refused');
    try {
      const error = await errorOf(through(relay), 'SELECT 1');
      assert.equal((error as NodeJS.ErrnoException).code, 'ECONNREFUSED');
      assert.equal(isPostgresUnavailable(error), true);
    } finally {
      await relay.restore();
    }
  });

  for (const cut of ['refused', 'closed'] as const) {
    it(`a connection ${cut === 'refused' ? 'reset' : 'closed'} during a query`, async () => {
      const pending = errorOf(through(relay), 'SELECT pg_sleep(5)');
      await new Promise((resolve) => setTimeout(resolve, 300));
      await relay.cut(cut);
      try {
        const error = await pending;
        assert.ok(error instanceof Error, String(error));
        assert.match(
          error.message,
          cut === 'refused' ? /ECONNRESET/ : /^Connection terminated unexpectedly$/,
        );
        assert.equal(isPostgresUnavailable(error), true, error.message);
      } finally {
        await relay.restore();
      }
    });
  }

  it('a checked-out connection used after it broke (a transaction cut in its middle)', async () => {
    const pool = new pg.Pool({ connectionString: through(relay) });
    pool.on('error', () => {});
    const client = await pool.connect();
    client.on('error', () => {});
    try {
      await client.query('BEGIN');
      await relay.cut('refused');
      const first = await client.query('SELECT 1').then(
        () => undefined,
        (e: unknown) => e,
      );
      const next = await client.query('ROLLBACK').then(
        () => undefined,
        (e: unknown) => e,
      );
      for (const error of [first, next]) {
        assert.ok(error instanceof Error, String(error));
        assert.equal(isPostgresUnavailable(error), true, error.message);
      }
      assert.equal((next as Error).message, 'Client has encountered a connection error and is not queryable');
    } finally {
      client.release(true);
      await relay.restore();
      await pool.end().catch(() => {});
    }
  });

  it('no connection free in the pool in time (every one busy on a slow database)', async () => {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 1, connectionTimeoutMillis: 100 });
    const held = await pool.connect();
    try {
      const error = await pool.query('SELECT 1').then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(error instanceof Error, String(error));
      assert.equal(error.message, 'timeout exceeded when trying to connect');
      assert.equal(isPostgresUnavailable(error), true);
    } finally {
      held.release();
      await pool.end();
    }
  });

  it('a connection that cannot be made in time, and a query that gets no answer in time', async () => {
    await relay.cut('blackhole');
    try {
      const connecting = await errorOf(through(relay), 'SELECT 1', { connectionTimeoutMillis: 200 });
      assert.ok(connecting instanceof Error, String(connecting));
      assert.equal(connecting.message, 'Connection terminated due to connection timeout');
      assert.equal(isPostgresUnavailable(connecting), true, connecting.message);
    } finally {
      await relay.restore();
    }
    const pool = new pg.Pool({ connectionString: through(relay), query_timeout: 200 });
    pool.on('error', () => {});
    try {
      await pool.query('SELECT 1');
      await relay.cut('blackhole');
      const error = await pool.query('SELECT 1').then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(error instanceof Error, String(error));
      assert.equal(error.message, 'Query read timeout');
      assert.equal(isPostgresUnavailable(error), true);
    } finally {
      await relay.restore();
      await pool.end().catch(() => {});
    }
  });

  it('the server ending the session (57P01) and a database that does not exist (3D000)', async () => {
    const terminated = await errorOf(POSTGRES_URL, 'SELECT pg_terminate_backend(pg_backend_pid())');
    assert.equal((terminated as { code?: string }).code, '57P01');
    assert.equal(isPostgresUnavailable(terminated), true);
    const url = new URL(POSTGRES_URL);
    url.pathname = '/no_such_database_for_this_test';
    const missing = await errorOf(url.toString(), 'SELECT 1');
    assert.equal((missing as { code?: string }).code, '3D000');
    assert.equal(isPostgresUnavailable(missing), true);
  });

  it('errors of the query itself are not unavailability: they stay 500s', async () => {
    const cases = {
      '42601': 'SELEC 1',
      '42P01': 'SELECT * FROM no_such_table_for_this_test',
      '22P02': "SELECT 'x'::integer",
      '22012': 'SELECT 1 / 0',
      '23505': 'CREATE TEMP TABLE t (x int PRIMARY KEY); INSERT INTO t VALUES (1), (1)',
    };
    for (const [sqlState, sql] of Object.entries(cases)) {
      const error = await errorOf(POSTGRES_URL, sql);
      assert.equal((error as { code?: string }).code, sqlState, sql);
      assert.equal(isPostgresUnavailable(error), false, sql);
    }
  });

  it('errors that are not pg errors are not unavailability', () => {
    for (const error of [
      new TypeError("Cannot read properties of undefined (reading 'rows')"),
      new Error('boom'),
      new RangeError('Invalid array length'),
      'Connection terminated',
      undefined,
      null,
    ])
      assert.equal(isPostgresUnavailable(error), false, String(error));
  });
});
