import type { LimitPolicies } from '../limits/app-limiter.ts';
import type { GovernanceCache } from './governance-cache.ts';

/** The limiter's view of the snapshot: an app's own limits (API or file reset) and its team's. */
export function limitPoliciesOf(cache: GovernanceCache): LimitPolicies {
  return {
    appLimits: (app) => cache.snapshot.app(app)?.limits,
    teamOf: (app) => {
      const team = cache.snapshot.teamOf(app);
      return team === undefined ? undefined : { name: team.name, limits: team.limits };
    },
  };
}
