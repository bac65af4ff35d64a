import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { DatabaseSync } from 'node:sqlite';

/** Work done on the file through a connection of its own, closed after. */
export function onTheSide<T>(file: string, work: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(file);
  try {
    return work(db);
  } finally {
    db.close();
  }
}

// Another process writes the bytes: closing a descriptor of the file in this one would drop
// the POSIX locks SQLite holds on it here.
function copyHeader(from: string, to: string): void {
  execFileSync('dd', [`if=${from}`, `of=${to}`, 'bs=100', 'count=1', 'conv=notrunc'], { stdio: 'ignore' });
}

/**
 * An embedded database file made unreadable under a running server: its pages moved from the WAL
 * into the file (a checkpoint), then the file's header overwritten by another process, as a
 * failing disk or a bad copy would leave it. SQLite then answers "file is not a database" to
 * every connection that reads it. The returned function puts the header back, and one write
 * through another connection tells the server's connections that the file changed (SQLite keeps
 * trusting its cache until the WAL does).
 */
export function breakSqliteHeader(file: string): () => void {
  onTheSide(file, (db) => {
    const result = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as { busy: number };
    assert.equal(result.busy, 0, 'checkpoint complete');
  });
  const saved = `${file}.header`;
  copyHeader(file, saved);
  copyHeader('/dev/zero', file);
  return () => {
    copyHeader(saved, file);
    onTheSide(file, (db) => db.exec('PRAGMA user_version = 1'));
  };
}
