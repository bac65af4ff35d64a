import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { isSqliteUnavailable } from './sqlite-unavailable.ts';

function errorOf(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  assert.fail('expected SQLite to fail');
}

/** The primary result code of a node:sqlite error (the low byte of the extended one). */
const primary = (error: unknown) => ((error as { errcode: number }).errcode & 0xff) as number;

describe('isSqliteUnavailable, on errors node:sqlite really raises', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-unavailable-'));

  it('the file locked by another connection past the busy timeout (SQLITE_BUSY)', () => {
    const file = join(dir, 'busy.sqlite');
    const holder = new DatabaseSync(file);
    holder.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)');
    const other = new DatabaseSync(file);
    other.exec('PRAGMA busy_timeout = 10');
    const error = errorOf(() => other.exec('INSERT INTO t VALUES (2)'));
    assert.equal(primary(error), 5);
    assert.equal(isSqliteUnavailable(error), true);
    holder.exec('ROLLBACK');
    holder.close();
    other.close();
  });

  it('a file that is not a database (SQLITE_NOTADB), one that cannot be opened (SQLITE_CANTOPEN)', () => {
    const garbage = join(dir, 'garbage.sqlite');
    writeFileSync(garbage, 'x'.repeat(4096));
    const notADatabase = errorOf(() =>
      new DatabaseSync(garbage).prepare('SELECT * FROM sqlite_master').all(),
    );
    assert.equal(primary(notADatabase), 26);
    assert.equal(isSqliteUnavailable(notADatabase), true);
    const cannotOpen = errorOf(() => new DatabaseSync(join(dir, 'no-such-dir', 'x.sqlite')));
    assert.equal(primary(cannotOpen), 14);
    assert.equal(isSqliteUnavailable(cannotOpen), true);
  });

  it('a read-only file written to (SQLITE_READONLY), a full one (SQLITE_FULL)', () => {
    const file = join(dir, 'small.sqlite');
    const db = new DatabaseSync(file);
    db.exec('CREATE TABLE t (x)');
    const readOnly = errorOf(() =>
      new DatabaseSync(file, { readOnly: true }).exec('INSERT INTO t VALUES (1)'),
    );
    assert.equal(primary(readOnly), 8);
    assert.equal(isSqliteUnavailable(readOnly), true);
    // The page limit stands in for the disk: SQLite answers the same code for both.
    db.exec('PRAGMA max_page_count = 3');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    const full = errorOf(() => {
      for (let i = 0; i < 100; i++) insert.run('y'.repeat(1_000));
    });
    assert.equal(primary(full), 13);
    assert.equal(isSqliteUnavailable(full), true);
    db.close();
  });

  it('errors of the statement itself are not unavailability: they stay 500s', () => {
    const db = new DatabaseSync(':memory:');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, x TEXT NOT NULL UNIQUE)');
    db.exec("INSERT INTO t (x) VALUES ('a')");
    const cases: [string, () => unknown, number][] = [
      ['syntax', () => db.exec('SELEC 1'), 1],
      ['no such table', () => db.prepare('SELECT * FROM nope'), 1],
      ['constraint', () => db.exec("INSERT INTO t (x) VALUES ('a')"), 19],
      ['datatype mismatch', () => db.exec("INSERT INTO t (id, x) VALUES ('one', 'b')"), 20],
    ];
    for (const [name, work, code] of cases) {
      const error = errorOf(work);
      assert.equal(primary(error), code, name);
      assert.equal(isSqliteUnavailable(error), false, name);
    }
    db.close();
    const closed = errorOf(() => db.prepare('SELECT 1'));
    assert.equal(isSqliteUnavailable(closed), false, 'a closed connection is our own doing');
  });

  it('errors that are not SQLite errors are not unavailability', () => {
    for (const error of [
      new TypeError('x is not a function'),
      Object.assign(new Error('database is locked'), { errcode: 5 }),
      { code: 'ERR_SQLITE_ERROR', errcode: 5 },
      undefined,
    ])
      assert.equal(isSqliteUnavailable(error), false, String(error));
  });
});
