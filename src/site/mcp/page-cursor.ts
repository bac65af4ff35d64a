/**
 * The opaque `cursor` of `list_pages`: the offset of the next page, bound to the listing it came
 * from (the `kind` filter), base64url-encoded. Clients must treat it as opaque (MCP pagination);
 * encoding the filter lets a cursor reused with another filter fail clearly instead of skipping.
 */
export interface PageCursor {
  offset: number;
  kind: string;
}

export function encodeCursor(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify({ o: cursor.offset, k: cursor.kind }), 'utf8').toString('base64url');
}

/** Returns the cursor, or a message saying why it cannot be used. */
export function decodeCursor(text: string, kind: string): PageCursor | { error: string } {
  const invalid = {
    error: 'cursor is not valid: pass the nextCursor of a previous list_pages answer unchanged',
  };
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) return invalid;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return invalid;
  }
  if (typeof value !== 'object' || value === null) return invalid;
  const { o, k } = value as { o?: unknown; k?: unknown };
  if (typeof o !== 'number' || !Number.isSafeInteger(o) || o < 0 || typeof k !== 'string') return invalid;
  if (k !== kind) {
    return {
      error: `cursor belongs to a listing with kind '${k}'; repeat that kind or start again without a cursor`,
    };
  }
  return { offset: o, kind: k };
}
