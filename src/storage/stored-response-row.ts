import type { StoredResponse } from './ports.ts';
import type { StoredResponseRow } from './stored-response-sql.ts';

/** A row of either engine as the port's record. */
export function toStoredResponse(row: StoredResponseRow): StoredResponse {
  return {
    app: row.app,
    id: row.id,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    response: row.response,
    inputItems: row.input_items,
  };
}
