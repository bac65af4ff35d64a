import { randomFillSync } from 'node:crypto';

/**
 * Random bytes drawn ahead, 4 KiB at a time, and handed out 16 at a time: each id takes bytes no
 * other id took, and a refill draws new ones from the system's CSPRNG (what randomUUID does with
 * its own cache). An id is then one hex conversion of its bytes, written flat: randomUUID builds
 * its text from 20 pieces, which a request's two ids (the request's and the ledger row's) paid
 * with about 3 µs (bench/instructions.ts --runtime-callers: `serializeUUID`, the string joins, the
 * slices and dashes taken out after).
 */
const POOL_BYTES = 4096;
const ID_BYTES = 16;
const pool = Buffer.allocUnsafeSlow(POOL_BYTES);
let next = POOL_BYTES;

/** Where the next id's 16 fresh random bytes start in `pool`. */
function takeBytes(): number {
  if (next + ID_BYTES > POOL_BYTES) {
    randomFillSync(pool);
    next = 0;
  }
  const at = next;
  next += ID_BYTES;
  return at;
}

/** A unique, unguessable identifier with a readable prefix (`req_…`, `sub_…`): 128 random bits in 32 hex digits. */
export function newId(prefix: string): string {
  const at = takeBytes();
  return `${prefix}_${pool.toString('hex', at, at + ID_BYTES)}`;
}

/**
 * Like `newId`, but laid out as a UUIDv7 (RFC 9562): 48 bits of Unix milliseconds first, then
 * the version (7), 12 random bits, the variant (binary 10) and 62 random bits, so ids sort by
 * creation time. Used for ids that are primary keys of append-mostly tables (the usage ledger):
 * random keys scatter every insert across the whole index, which costs the embedded ledger 30+ µs
 * per row once it holds a few hundred thousand rows, against 7 µs for keys that arrive in order.
 * Still 32 hex digits after the prefix.
 */
export function newTimeOrderedId(prefix: string, now = Date.now()): string {
  const at = takeBytes();
  // The id's own bytes: the time is written over its first six, never read as random again.
  pool.writeUIntBE(now, at, 6);
  pool[at + 6] = 0x70 | ((pool[at + 6] as number) & 0x0f);
  pool[at + 8] = 0x80 | ((pool[at + 8] as number) & 0x3f);
  return `${prefix}_${pool.toString('hex', at, at + ID_BYTES)}`;
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Honour a caller's x-request-id when it is short and harmless; otherwise mint one. */
export function pickRequestId(incoming: string | string[] | undefined): string {
  if (typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming)) return incoming;
  return newId('req');
}
