import { randomUUID } from 'node:crypto';

/**
 * A unique, unguessable identifier with a readable prefix (`chat_…`, `emb_…`).
 * randomUUID draws from a pre-filled entropy cache, so this costs well under a microsecond.
 */
export function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Honour a caller's x-request-id when it is short and harmless; otherwise mint one. */
export function pickRequestId(incoming: string | string[] | undefined): string {
  if (typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming)) return incoming;
  return newId('req');
}
