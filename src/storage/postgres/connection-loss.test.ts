import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { POSTGRES_URL, startPostgresRelay, throughRelay } from '../../../test/helpers/postgres.ts';
import type { TcpRelay } from '../../../test/helpers/tcp-relay.ts';
import { connectionLoss } from './connection-loss.ts';

/** The error `sql` rejects with on a pool through `relay`, after `during` (which may cut the relay). */
async function errorOf(
  relay: TcpRelay,
  sql: string,
  during: (pool: pg.Pool) => Promise<void>,
  options: pg.PoolConfig = {},
): Promise<unknown> {
  const pool = new pg.Pool({ connectionString: throughRelay(POSTGRES_URL, relay).toString(), ...options });
  pool.on('error', () => {});
  try {
    await during(pool);
    await pool.query(sql);
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await relay.restore();
    await pool.end().catch(() => {});
  }
}

describe('connectionLoss: whether a statement failed because its connection was dead, and whether it was sent', () => {
  let relay: TcpRelay;
  before(async () => {
    relay = await startPostgresRelay();
  });
  after(() => relay.close());

  it('a pooled connection reset while idle, used before pg noticed: the write fails, unsent', async () => {
    const error = await errorOf(relay, 'SELECT 1', async (pool) => {
      await pool.query('SELECT 1');
      await relay.cut('refused');
      await relay.restore();
    });
    assert.equal((error as NodeJS.ErrnoException).syscall, 'write', String(error));
    assert.equal(connectionLoss(error), 'unsent');
  });

  for (const cut of ['refused', 'closed'] as const) {
    it(`a connection ${cut === 'refused' ? 'reset' : 'closed'} while the statement runs: sent`, async () => {
      const pool = new pg.Pool({ connectionString: throughRelay(POSTGRES_URL, relay).toString() });
      pool.on('error', () => {});
      try {
        const failed = pool.query('SELECT pg_sleep(5)').catch((error: unknown) => error);
        await relay.clientSends('pg_sleep');
        await new Promise((resolve) => setTimeout(resolve, 50));
        await relay.cut(cut);
        assert.equal(connectionLoss(await failed), 'sent');
      } finally {
        await relay.restore();
        await pool.end().catch(() => {});
      }
    });
  }

  it('an error the server answered, with a SQLSTATE, never: even one of connection class 08 or a shutdown', async () => {
    const syntax = await errorOf(relay, 'SELEC 1', async () => {});
    assert.ok(syntax instanceof pg.DatabaseError);
    assert.equal(connectionLoss(syntax), undefined);
    for (const code of ['08006', '57P01', '57014']) {
      const error = new pg.DatabaseError('from the server', 0, 'error');
      error.code = code;
      assert.equal(connectionLoss(error), undefined, code);
    }
  });

  it("the server's statement timeout never (57014)", async () => {
    const error = await errorOf(relay, 'SELECT pg_sleep(1)', async () => {}, { statement_timeout: 50 });
    assert.equal((error as pg.DatabaseError).code, '57014');
    assert.equal(connectionLoss(error), undefined);
  });

  it("the pool's statement bound never (Query read timeout): the server may still be running it", async () => {
    const error = await errorOf(relay, 'SELECT pg_sleep(1)', async () => {}, { query_timeout: 50 });
    assert.equal((error as Error).message, 'Query read timeout');
    assert.equal(connectionLoss(error), undefined);
  });

  it('a connection that could not be made never (there was no pooled connection to lose)', async () => {
    const error = await errorOf(relay, 'SELECT 1', () => relay.cut('refused'));
    assert.equal((error as NodeJS.ErrnoException).code, 'ECONNREFUSED');
    assert.equal(connectionLoss(error), undefined);
  });

  it('anything that is not an error never', () => {
    for (const value of [undefined, 'ECONNRESET', { code: 'ECONNRESET', syscall: 'write' }])
      assert.equal(connectionLoss(value), undefined);
  });
});
