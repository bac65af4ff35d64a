import type { AppStore } from '../../storage/ports.ts';
import type { KeySource } from '../auth/credential-verifier.ts';
import type { GovernanceCache } from './governance-cache.ts';
import type { KeyEntry } from './governance-snapshot.ts';

/** The verifier's keys, from the governance snapshot; the migration of a hash through the app store. */
export function keysFromGovernance(cache: GovernanceCache, apps: AppStore): KeySource {
  return {
    keysOf: (app: string): readonly KeyEntry[] | undefined => cache.snapshot.app(app)?.keys,
    async replaceSecretHash(app, keyId, expected, secretHash) {
      // Only the app's own secret (`primary`) can be an old scrypt hash of a generated secret:
      // keys made through the admin API are generated and stored keyed from the start.
      if (keyId !== 'primary') return false;
      const replaced = await apps.replaceSecretHash(app, expected, secretHash);
      if (replaced) await cache.refresh();
      return replaced;
    },
  };
}
