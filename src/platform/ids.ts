import { randomUUID } from 'node:crypto';

/**
 * A unique, unguessable identifier with a readable prefix (`req_…`, `sub_…`).
 * randomUUID draws from a pre-filled entropy cache, so this costs well under a microsecond.
 */
export function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}

/**
 * Like `newId`, but laid out as a UUIDv7 (RFC 9562): 48 bits of Unix milliseconds first, then
 * 74 random bits, so ids sort by creation time. Used for ids that are primary keys of append-
 * mostly tables (the usage ledger): random keys scatter every insert across the whole index,
 * which costs the embedded ledger 30+ µs per row once it holds a few hundred thousand rows,
 * against 7 µs for keys that arrive in order. Still 32 hex digits after the prefix.
 */
export function newTimeOrderedId(prefix: string, now = Date.now()): string {
  // A v4 UUID is 8-4-4-4-12 hex digits with the version at 14 and the variant at 19; its random
  // digits from 15 on (variant included) are exactly the tail a v7 UUID needs.
  const uuid = randomUUID();
  return `${prefix}_${hexTime(now)}7${uuid.slice(15, 18)}${uuid.slice(19, 23)}${uuid.slice(24)}`;
}

let hexAt = Number.NaN;
let hexText = '';

/**
 * The milliseconds in 12 hex digits, written once per millisecond: `toString(16)` is a call into
 * V8's runtime (2.5k instructions, bench/instructions.ts --runtime-callers), and under load
 * several requests start in the same millisecond.
 */
function hexTime(now: number): string {
  if (now !== hexAt) {
    hexAt = now;
    hexText = now.toString(16).padStart(12, '0');
  }
  return hexText;
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Honour a caller's x-request-id when it is short and harmless; otherwise mint one. */
export function pickRequestId(incoming: string | string[] | undefined): string {
  if (typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming)) return incoming;
  return newId('req');
}
