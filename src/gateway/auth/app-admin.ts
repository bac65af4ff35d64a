import type { AppSeed } from '../../config/config-types.ts';
import { APP_NAME_PATTERN } from '../../config/parse-apps.ts';
import type { Clock } from '../../platform/clock.ts';
import {
  generateSecret,
  hashSecret,
  preferredHashForm,
  secretHashForm,
  verifySecret,
} from '../../platform/secret-hash.ts';
import { AppExistsError, type AppRecord, type AppStore } from '../../storage/ports.ts';

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
   * Creates the app with a fresh secret unless the name is taken, also by an instance creating it
   * at the same moment: the store's insert decides, so exactly one caller gets the credential.
   */
  async createIfAbsent(name: string): Promise<IssuedCredential | undefined> {
    assertAppName(name);
    const secret = generateSecret();
    return (await this.#insert(name, secret)) ? { name, secret } : undefined;
  }

  /**
   * Makes the seeded apps (GATEWAY_APPS, config `apps`) exist with exactly the given secrets.
   * An app whose stored secret already matches, in the form it would be stored in today, is left
   * untouched, so restarts do not rehash.
   * Instances starting together with the same seeds all succeed: an insert lost to another
   * instance falls back to checking the secret that instance stored. Given different secrets for
   * one name, the instance that writes last wins, as it would one after the other.
   */
  async applySeeds(seeds: readonly AppSeed[]): Promise<void> {
    for (const seed of seeds) {
      assertAppName(seed.name);
      const found = await this.#store.findApp(seed.name);
      if (found === undefined && (await this.#insert(seed.name, seed.secret))) continue;
      const existing = found ?? (await this.#store.findApp(seed.name));
      if (existing === undefined) throw new AppAdminError(`app '${seed.name}' vanished while seeding`);
      if (existing.revokedAt !== null || !(await verifySecret(seed.secret, existing.secretHash))) {
        await this.#store.setSecret(seed.name, await hashSecret(seed.secret), this.#clock.now());
      } else if (secretHashForm(existing.secretHash) !== preferredHashForm(seed.secret)) {
        // The same secret in another form than it gets today (a generated secret hashed with
        // scrypt before decision 0013): stored again, so that its checks cost what they should.
        await this.#store.replaceSecretHash(seed.name, existing.secretHash, await hashSecret(seed.secret));
      }
    }
  }

  /** True when this call created the app; false when the name was taken, however recently. */
  async #insert(name: string, secret: string): Promise<boolean> {
    try {
      await this.#store.createApp(name, await hashSecret(secret), this.#clock.now());
      return true;
    } catch (error) {
      if (error instanceof AppExistsError) return false;
      throw error;
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
