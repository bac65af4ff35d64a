import { hash, randomBytes } from 'node:crypto';
import type { Clock } from '../../platform/clock.ts';
import { constantTimeEqual } from '../../platform/constant-time.ts';
import {
  generateSecret,
  hashSecretKeyed,
  isGeneratedSecret,
  secretHashForm,
  verifyKeyedSecret,
  verifySecret,
} from '../../platform/secret-hash.ts';
import { FailureWindows } from './failure-windows.ts';
import { SlowCheckQueue } from './slow-check-queue.ts';

/** A key as requests are checked against it (from the governance snapshot). */
export interface KeyEntry {
  id: string;
  name: string;
  secretHash: string;
  expiresAt: number | null;
  revokedAt: number | null;
}

/** A key as last read, with the digest of the secret that verified against its hash. */
interface CachedKey {
  entry: KeyEntry;
  /** SHA-256 (base64) of the secret that last verified against entry.secretHash. */
  verifiedDigest: string | undefined;
  /** The verdict of a usable key, made once: accepting costs no allocation. */
  accepted: CredentialVerdict;
  /** The minute its use was last noted (KeyUseListener), so a minute notes it once. */
  notedMinute: number;
}

interface CachedApp {
  /** The array the key source answered: a new one means the keys changed. */
  source: readonly KeyEntry[];
  keys: CachedKey[];
}

/**
 * Where an app's keys come from (the governance snapshot): synchronous, so a request never waits
 * for the store. `keysOf` answers a new array whenever an app's keys change.
 */
export interface KeySource {
  /** Undefined for an unknown or deleted app. */
  keysOf(app: string): readonly KeyEntry[] | undefined;
  /** Another hash of the same secret (decision 0013's migration), while `expected` is still stored. */
  replaceSecretHash(app: string, keyId: string, expected: string, secretHash: string): Promise<boolean>;
}

/** Told of each accepted key once a minute (the key's `lastUsedAt`). */
export type KeyUseListener = (app: string, keyId: string, minute: number) => void;

/** What a check decided: `throttled` means it was not checked (too many failures; retry later). */
export type CredentialVerdict =
  | { outcome: 'accepted'; keyId: string }
  | { outcome: 'refused'; reason?: 'expired' | 'revoked'; keyName?: string; at?: number }
  | { outcome: 'throttled'; retryAfterSeconds: number };

export interface CredentialVerifierOptions {
  /** Wrong (app, secret) pairs remembered, so repeating one costs no scrypt. */
  maxRememberedFailures?: number;
  /** The window failures are counted in, per client address and per app name. */
  failureWindowMs?: number;
  /** Failed checks one client address may make in a window; past it, its checks are throttled. */
  failuresPerAddress?: number;
  /** Failed checks one app name may get in a window before its slow (scrypt) checks are throttled. */
  failuresPerName?: number;
  /** Failed slow (scrypt) checks one client address may make in a window before its slow checks are throttled. */
  slowFailuresPerAddress?: number;
  /** Slow checks run at once, and waiting, before more are throttled. */
  slowChecksRunning?: number;
  slowChecksWaiting?: number;
  /** Slow checks started per second on average, and at most at once after a quiet time. */
  slowChecksPerSecond?: number;
  slowChecksBurst?: number;
  /**
   * How long a throttled check waits before its 429 goes out: a client that ignores Retry-After
   * and sends again at once gets one answer a second per connection, so a flood of wrong secrets
   * costs the process a timer each rather than the time of every other caller.
   */
  throttledAnswerDelayMs?: number;
}

const REFUSED: CredentialVerdict = { outcome: 'refused' };
const MINUTE_MS = 60_000;

function digest(value: string): string {
  // The one-shot form, no Hash object per request; as a base64 string, as Node makes a string
  // five times faster than a Buffer here (0.3 against 1.5 µs).
  return hash('sha256', value, 'base64');
}

/**
 * Checks (app, secret, client address) triples against the app's keys (decisions 0013, 0026). A
 * verified key is cached: a request then costs one SHA-256 and a constant-time comparison per
 * verified key of its app (one or two, at most 20), then the key's end and revocation. Otherwise
 * what a check costs depends only on the form of the presented secret, never on whether the app
 * exists or the secret is right: a secret in the generated form is checked against the app's
 * keyed hashes (µs each; a decoy one when the app has none), any other against its scrypt hash (a
 * decoy one when it has none), through a bounded queue. Failures are counted per client address
 * and per app name, known or not: past the limits, checks are throttled without being made. Keys
 * come from the governance snapshot, which every instance keeps up to date within a second or so.
 * A secret that matches a revoked or ended key is refused with the reason, so its holder knows
 * to ask for a new one; it says nothing a stranger could use (the secret had to be right).
 */
export class CredentialVerifier {
  readonly #keys: KeySource;
  readonly #clock: Clock;
  readonly #maxFailures: number;
  readonly #failuresPerAddress: number;
  readonly #failuresPerName: number;
  readonly #onUse: KeyUseListener;
  /** Known apps only: no more entries than the store has apps, whatever callers send. */
  readonly #apps = new Map<string, CachedApp>();
  readonly #failures = new Map<string, number>();
  readonly #pending = new Map<string, Promise<CredentialVerdict>>();
  readonly #byAddress: FailureWindows;
  readonly #byName: FailureWindows;
  readonly #slowByAddress: FailureWindows;
  readonly #slowFailuresPerAddress: number;
  readonly #queue: SlowCheckQueue;
  /** Checked against when the app has no hash of the secret's form, so that costs the same. */
  readonly #decoyKeyed = hashSecretKeyed(generateSecret());
  readonly #decoyScrypt =
    `scrypt$16384$8$1$${randomBytes(16).toString('base64url')}$${randomBytes(32).toString('base64url')}`;

  constructor(
    keys: KeySource,
    clock: Clock,
    options: CredentialVerifierOptions = {},
    onUse: KeyUseListener = () => {},
  ) {
    this.#keys = keys;
    this.#clock = clock;
    this.#onUse = onUse;
    this.throttledAnswerDelayMs = options.throttledAnswerDelayMs ?? 1_000;
    this.#maxFailures = options.maxRememberedFailures ?? 10_000;
    const windowMs = options.failureWindowMs ?? 60_000;
    this.#byAddress = new FailureWindows({ windowMs, maxKeys: 10_000 });
    this.#byName = new FailureWindows({ windowMs, maxKeys: 10_000 });
    this.#slowByAddress = new FailureWindows({ windowMs, maxKeys: 10_000 });
    this.#slowFailuresPerAddress = options.slowFailuresPerAddress ?? 10;
    this.#failuresPerAddress = options.failuresPerAddress ?? 100;
    this.#failuresPerName = options.failuresPerName ?? 100;
    this.#queue = new SlowCheckQueue({
      concurrency: options.slowChecksRunning ?? 1,
      maxWaiting: options.slowChecksWaiting ?? 8,
      perSecond: options.slowChecksPerSecond ?? 2,
      burst: options.slowChecksBurst ?? 8,
      now: () => clock.monotonic(),
    });
  }

  /** How long the auth hook holds a throttled answer (see the option). */
  readonly throttledAnswerDelayMs: number;

  /** Apps whose keys are cached (bounded by the apps that exist: tests read it). */
  get cachedNames(): number {
    return this.#apps.size;
  }

  /** Slow checks running and waiting. */
  get slowCheckLoad(): number {
    return this.#queue.load;
  }

  /** Resolves true only for a usable key whose secret matches (throttled counts as false). */
  async verify(appName: string, secret: string, address = ''): Promise<boolean> {
    return (await this.check(appName, secret, address)).outcome === 'accepted';
  }

  /**
   * The verdict, synchronously when the cache decides (almost every request), so the request path
   * awaits nothing; a promise when scrypt must be consulted.
   */
  check(appName: string, secret: string, address: string): CredentialVerdict | Promise<CredentialVerdict> {
    const secretDigest = digest(secret);
    const found = this.#cached(appName);
    if (found !== undefined) {
      for (const key of found.keys) {
        if (key.verifiedDigest !== undefined && constantTimeEqual(key.verifiedDigest, secretDigest))
          return this.#usable(appName, key);
      }
    }
    // Concurrent first requests with one credential share one check, and settle in their order.
    const pendingKey = `${appName}\u0000${secretDigest}`;
    const pending = this.#pending.get(pendingKey);
    if (pending !== undefined) return pending;
    const decided = this.#decide(appName, secret, secretDigest, address, found);
    if (!(decided instanceof Promise)) return decided;
    const shared = decided.finally(() => this.#pending.delete(pendingKey));
    this.#pending.set(pendingKey, shared);
    return shared;
  }

  /** The verdict for a key whose secret matched: accepted unless revoked or ended. */
  #usable(appName: string, key: CachedKey): CredentialVerdict {
    const { entry } = key;
    if (entry.revokedAt !== null)
      return { outcome: 'refused', reason: 'revoked', keyName: entry.name, at: entry.revokedAt };
    const now = this.#clock.now();
    if (entry.expiresAt !== null && now >= entry.expiresAt)
      return { outcome: 'refused', reason: 'expired', keyName: entry.name, at: entry.expiresAt };
    const minute = now - (now % MINUTE_MS);
    if (key.notedMinute !== minute) {
      key.notedMinute = minute;
      this.#onUse(appName, entry.id, minute);
    }
    return key.accepted;
  }

  /** The app's cached keys, rebuilt when the source's array changed (verifications of unchanged keys kept). */
  #cached(appName: string): CachedApp | undefined {
    const source = this.#keys.keysOf(appName);
    const cached = this.#apps.get(appName);
    if (source === undefined) {
      if (cached !== undefined) this.#apps.delete(appName);
      return undefined;
    }
    if (cached?.source === source) return cached;
    const keys = source.map((entry): CachedKey => {
      const previous = cached?.keys.find(
        (k) => k.entry.id === entry.id && k.entry.secretHash === entry.secretHash,
      );
      return {
        entry,
        verifiedDigest: previous?.verifiedDigest,
        accepted: { outcome: 'accepted', keyId: entry.id },
        notedMinute: previous?.notedMinute ?? -1,
      };
    });
    const rebuilt = { source, keys };
    this.#apps.set(appName, rebuilt);
    return rebuilt;
  }

  #decide(
    appName: string,
    secret: string,
    secretDigest: string,
    address: string,
    found: CachedApp | undefined,
  ): CredentialVerdict | Promise<CredentialVerdict> {
    const now = this.#clock.now();
    if (this.#byAddress.failures(address, now) >= this.#failuresPerAddress)
      return { outcome: 'throttled', retryAfterSeconds: this.#byAddress.secondsLeft(address, now) };
    const keys = found?.keys ?? [];
    if (isGeneratedSecret(secret)) {
      const keyed = keys.filter((key) => secretHashForm(key.entry.secretHash) === 'keyed');
      if (keyed.length === 0) verifyKeyedSecret(secret, this.#decoyKeyed);
      for (const key of keyed) {
        if (verifyKeyedSecret(secret, key.entry.secretHash)) {
          key.verifiedDigest = secretDigest;
          return this.#usable(appName, key);
        }
      }
      // A generated secret stored as scrypt before decision 0013 is checked below, as scrypt.
      if (!keys.some((key) => secretHashForm(key.entry.secretHash) === 'scrypt'))
        return this.#refuse(appName, address, undefined);
    }
    const scryptKey = keys.find((key) => secretHashForm(key.entry.secretHash) === 'scrypt');
    const stored = scryptKey?.entry.secretHash ?? this.#decoyScrypt;
    const failureKey = `${appName}\u0000${secretDigest}\u0000${stored}`;
    if (this.#failures.has(failureKey)) return this.#refuse(appName, address, undefined);
    if (this.#slowByAddress.failures(address, now) >= this.#slowFailuresPerAddress)
      return { outcome: 'throttled', retryAfterSeconds: this.#slowByAddress.secondsLeft(address, now) };
    if (this.#byName.failures(appName, now) >= this.#failuresPerName)
      return { outcome: 'throttled', retryAfterSeconds: this.#byName.secondsLeft(appName, now) };
    const running = this.#queue.tryRun(() => verifySecret(secret, stored));
    if (running === undefined) return { outcome: 'throttled', retryAfterSeconds: 1 };
    return running.then((ok) => {
      if (!ok || scryptKey === undefined) {
        this.#slowByAddress.add(address, this.#clock.now());
        return this.#refuse(appName, address, failureKey);
      }
      // A change read meanwhile replaced the entry: this verification was of the old hash.
      if (scryptKey.entry.secretHash === stored) {
        scryptKey.verifiedDigest = secretDigest;
        if (isGeneratedSecret(secret)) this.#migrate(appName, scryptKey, secret);
      }
      return this.#usable(appName, scryptKey);
    });
  }

  #refuse(appName: string, address: string, failureKey: string | undefined): CredentialVerdict {
    const now = this.#clock.now();
    this.#byAddress.add(address, now);
    this.#byName.add(appName, now);
    if (failureKey !== undefined) {
      if (this.#failures.size >= this.#maxFailures) {
        const oldest = this.#failures.keys().next().value;
        if (oldest !== undefined) this.#failures.delete(oldest);
      }
      this.#failures.set(failureKey, now);
    }
    return REFUSED;
  }

  /**
   * A generated secret stored as scrypt (before decision 0013) gets the keyed form once it has
   * verified, so that its app's checks stop costing scrypt. Only while the stored hash is still
   * the one verified: a rotation made meanwhile wins. A failed write is tried again at the next
   * verification (after a restart or a rotation); the secret keeps working meanwhile.
   */
  #migrate(appName: string, key: CachedKey, secret: string): void {
    this.#keys
      .replaceSecretHash(appName, key.entry.id, key.entry.secretHash, hashSecretKeyed(secret))
      .catch(() => {});
  }
}
