import { createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { constantTimeEqual } from './constant-time.ts';

/**
 * App secrets are stored as salted hashes in one of two forms (decision 0013):
 *
 * - `keyed$<salt>$<mac>`, HMAC-SHA256 keyed by a random salt, for secrets in the generated form
 *   (`gws_` and 32 random bytes). Guessing 256 random bits is hopeless at any hash speed, so a
 *   stolen database gives nothing, and a check costs about 15 µs: a wrong secret costs what a
 *   right one does.
 * - `scrypt$N$r$p$salt$key` for every other secret (chosen by an operator, so possibly guessable).
 *   The cost is moderate (N=2^14, ~16 MiB, a few tens of ms); the gateway verifies a secret once
 *   and then caches the verification (gateway/auth/credential-verifier.ts), and bounds how many
 *   such checks run (gateway/auth/slow-check-queue.ts).
 */
const N = 16_384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;

/** What `generateSecret` makes; only such secrets are stored in the fast keyed form. */
const GENERATED_FORM = /^gws_[A-Za-z0-9_-]{43}$/;

/** Which check a stored hash needs: a few µs, or a scrypt derivation. */
export type SecretHashForm = 'keyed' | 'scrypt' | 'malformed';

function derive(secret: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, KEY_LENGTH, { N: n, r, p, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

function macOf(secret: string, salt: string): string {
  return createHmac('sha256', salt).update(secret).digest('base64url');
}

/** True for a secret shaped like the ones `generateSecret` makes (`gws_` and 43 base64url characters). */
export function isGeneratedSecret(secret: string): boolean {
  return secret.length === 47 && GENERATED_FORM.test(secret);
}

/** The form a stored hash is in, read from its prefix. */
export function secretHashForm(stored: string): SecretHashForm {
  if (stored.startsWith('keyed$')) return 'keyed';
  if (stored.startsWith('scrypt$')) return 'scrypt';
  return 'malformed';
}

/** The form `hashSecret` stores this secret in. */
export function preferredHashForm(secret: string): 'keyed' | 'scrypt' {
  return isGeneratedSecret(secret) ? 'keyed' : 'scrypt';
}

/** The keyed form, computed at once (only meant for generated secrets). */
export function hashSecretKeyed(secret: string): string {
  const salt = randomBytes(16).toString('base64url');
  return `keyed$${salt}$${macOf(secret, salt)}`;
}

export async function hashSecret(secret: string): Promise<string> {
  if (preferredHashForm(secret) === 'keyed') return hashSecretKeyed(secret);
  const salt = randomBytes(16);
  const key = await derive(secret, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/**
 * Checks a secret against a keyed hash synchronously, in time that does not depend on where the
 * secret differs. A hash in another form never verifies here.
 */
export function verifyKeyedSecret(secret: string, stored: string): boolean {
  const parts = stored.split('$');
  if (parts.length !== 3 || parts[0] !== 'keyed') return false;
  const salt = parts[1] ?? '';
  const expected = parts[2] ?? '';
  if (salt === '' || expected.length !== 43) return false;
  return constantTimeEqual(macOf(secret, salt), expected);
}

/** Constant-time check of a secret against a stored hash of either form. A malformed hash never verifies. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const form = secretHashForm(stored);
  if (form === 'keyed') return verifyKeyedSecret(secret, stored);
  if (form !== 'scrypt') return false;
  const parts = stored.split('$');
  if (parts.length !== 6) return false;
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
