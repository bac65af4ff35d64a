import type { Clock } from '../../platform/clock.ts';
import type { Storage } from '../../storage/ports.ts';
import type { AnnounceChange } from './change-signal.ts';
import { GovernanceAdmin } from './governance-admin.ts';
import type { GovernanceCache } from './governance-cache.ts';
import { GovernanceSnapshot } from './governance-snapshot.ts';
import { KeyAdmin } from './key-admin.ts';

/**
 * The governance services over a storage, applying changes to `cache` at once (admin API, CLI)
 * and, with `announce`, telling the other instances (change-signal.ts).
 */
export function governanceAdminOf(
  storage: Storage,
  cache: GovernanceCache | undefined,
  clock: Clock,
  announce?: AnnounceChange,
) {
  return {
    ...governanceServices(storage, cache, clock, announce),
    snapshot: cache?.snapshot ?? new GovernanceSnapshot(),
  };
}

/** The services alone (the CLI: no snapshot to keep). */
export function governanceServices(
  storage: Storage,
  cache: GovernanceCache | undefined,
  clock: Clock,
  announce?: AnnounceChange,
) {
  const admin = new GovernanceAdmin({
    store: storage.governance,
    apps: storage.apps,
    now: () => clock.now(),
    refresh: async () => {
      await cache?.refresh();
      if (cache !== undefined) announce?.(cache.snapshot.version);
    },
  });
  return { admin, keys: new KeyAdmin(admin) };
}
