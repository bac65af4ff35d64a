/**
 * The statements of the StoredResponses port (migration 008), the same for both engines, with
 * `?` placeholders (PostgreSQL numbers them).
 */

export const INSERT_STORED_RESPONSE =
  'INSERT INTO stored_responses (app, id, created_at, expires_at, bytes, response, input_items) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (app, id) DO NOTHING';

export const READ_STORED_RESPONSE =
  'SELECT app, id, created_at, expires_at, response, input_items FROM stored_responses WHERE app = ? AND id = ? AND expires_at > ?';

export const DELETE_STORED_RESPONSE = 'DELETE FROM stored_responses WHERE app = ? AND id = ?';

/** Most expired responses one write deletes, so a backlog drains while no write grows with it. */
export const EXPIRED_PER_WRITE = 100;

export const DELETE_EXPIRED_RESPONSES = `DELETE FROM stored_responses WHERE (app, id) IN (SELECT app, id FROM stored_responses WHERE expires_at <= ? LIMIT ${EXPIRED_PER_WRITE})`;

/** An app's stored responses past its count, oldest first: deleted after each insert. */
export const DELETE_OVER_COUNT = `DELETE FROM stored_responses WHERE (app, id) IN (SELECT app, id FROM stored_responses WHERE app = ? ORDER BY created_at DESC, id DESC LIMIT ${EXPIRED_PER_WRITE} OFFSET ?)`;

/** The row as both engines return it (BIGINT may come back as a string from PostgreSQL). */
export interface StoredResponseRow {
  app: string;
  id: string;
  created_at: number | string | bigint;
  expires_at: number | string | bigint;
  response: string;
  input_items: string;
}
