import type { AppSeed } from '../../config/config-types.ts';
import { APP_NAME_PATTERN } from '../../config/parse-apps.ts';
import type { Clock } from '../../platform/clock.ts';
import { generateSecret, hashSecret, verifySecret } from '../../platform/secret-hash.ts';
import type { AppRecord, AppStore } from '../../storage/ports.ts';

export class AppAdminError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AppAdminError';
  }
}

export interface IssuedCredential {
  name: string;
  secret: string;
}

/** App management shared by the CLI and start-up seeding. Secrets leave here once, never stored in clear. */
export class AppAdmin {
  readonly #store: AppStore;
  readonly #clock: Clock;

  constructor(store: AppStore, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  async create(name: string, secret: string = generateSecret()): Promise<IssuedCredential> {
    assertAppName(name);
    await this.#store.createApp(name, await hashSecret(secret), this.#clock.now());
    return { name, secret };
  }

  async rotate(name: string): Promise<IssuedCredential> {
    const secret = generateSecret();
    if (!(await this.#store.setSecret(name, await hashSecret(secret), this.#clock.now()))) {
      throw new AppAdminError(`no app named '${name}'`);
    }
    return { name, secret };
  }

  async revoke(name: string): Promise<void> {
    if (!(await this.#store.revokeApp(name, this.#clock.now()))) {
      throw new AppAdminError(`no active app named '${name}'`);
    }
  }

  list(): Promise<AppRecord[]> {
    return this.#store.listApps();
  }

  /**
   * Makes the seeded apps (GATEWAY_APPS, config `apps`) exist with exactly the given secrets.
   * An app whose stored secret already matches is left untouched, so restarts do not rehash.
   */
  async applySeeds(seeds: readonly AppSeed[]): Promise<void> {
    for (const seed of seeds) {
      assertAppName(seed.name);
      const existing = await this.#store.findApp(seed.name);
      if (existing === undefined) {
        await this.#store.createApp(seed.name, await hashSecret(seed.secret), this.#clock.now());
      } else if (existing.revokedAt !== null || !(await verifySecret(seed.secret, existing.secretHash))) {
        await this.#store.setSecret(seed.name, await hashSecret(seed.secret), this.#clock.now());
      }
    }
  }
}

function assertAppName(name: string): void {
  if (!APP_NAME_PATTERN.test(name)) {
    throw new AppAdminError(
      'an app name is 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit',
    );
  }
}
