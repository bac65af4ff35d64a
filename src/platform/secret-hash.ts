import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * App secrets are stored as salted scrypt hashes. The cost is moderate (N=2^14, ~16 MiB, a few
 * tens of ms) because the gateway verifies a secret once and then caches the verification
 * (see gateway/http/credential-verifier.ts), so the cost is paid per credential, not per request.
 */
const N = 16_384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;

function derive(secret: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, KEY_LENGTH, { N: n, r, p, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(secret, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** Constant-time check of a secret against a stored hash. A malformed hash never verifies. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (![n, r, p].every(Number.isSafeInteger)) return false;
  const salt = Buffer.from(parts[4] ?? '', 'base64url');
  const expected = Buffer.from(parts[5] ?? '', 'base64url');
  if (expected.length !== KEY_LENGTH) return false;
  const actual = await derive(secret, salt, n, r, p);
  return timingSafeEqual(actual, expected);
}

/** A new app secret: 32 random bytes, URL-safe, prefixed so it is recognisable in a leak scanner. */
export function generateSecret(): string {
  return `gws_${randomBytes(32).toString('base64url')}`;
}
