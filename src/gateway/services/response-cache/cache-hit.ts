import type { RequestRun } from '../run/request-run.ts';
import type { AdmissionInput } from '../run/request-run-inputs.ts';
import type { CachePolicy, ResponseCache } from './response-cache.ts';

/** What the cache has for a request: an answer, or the request leads (`settle` with its answer, if any). */
export type Lookup<T> =
  | { found: T }
  | { found?: undefined; settle: ((answer: T | undefined) => void) | undefined };

/**
 * The entry a request may be answered with (CONTRACT 5.5), for both kinds of entry (the run's
 * outcome, a relayed answer): the stored one under `key`, else, with coalescing, the answer of
 * an identical request in flight once it ends. When there is none, the request leads for
 * identical ones (when it writes), in the same turn as the check that found no leader, so that
 * two requests cannot both lead; `kept` says which of its answers followers may take.
 */
export async function lookUpCached<T extends object>(
  cache: ResponseCache,
  key: string,
  policy: CachePolicy,
  signal: AbortSignal,
  read: (key: string) => Promise<T | undefined>,
  kept?: (answer: T) => boolean,
): Promise<Lookup<T>> {
  if (policy.read) {
    const stored = await read(key);
    if (stored !== undefined) return { found: stored };
    const leader = cache.follow<T>(key, signal);
    const led = leader === undefined ? undefined : await leader;
    if (led !== undefined) return { found: led };
  }
  return { settle: policy.write ? cache.lead<T>(key, kept) : undefined };
}

/** Who gave a cached answer, and what it cost then. */
export interface CachedOrigin {
  provider: string;
  model: string;
  costUsd: number;
}

/**
 * A hit's admission and record, the same for every door and lane: admitted against request
 * limits only (tokens and cost budgets neither reserved nor refused), and recorded with
 * `cache_hit`, cost 0, and the original's cost as the cost saved.
 */
export async function admitCacheHit(
  run: RequestRun,
  admission: AdmissionInput,
  origin: CachedOrigin,
): Promise<void> {
  await run.admit({ ...admission, maxOutputTokens: 0 }, true);
  run.answeredFromCache(origin.provider, origin.model, origin.costUsd);
}
