import type { RequestRun } from './request-run.ts';
import type { AdmissionInput } from './request-run-inputs.ts';
import type { CachePolicy, ResponseCache } from './response-cache.ts';

/**
 * The entry a request may be answered with (CONTRACT 5.5), for both kinds of entry (the run's
 * outcome, a relayed answer): the stored one under `key`, else, with coalescing, the answer of
 * an identical request in flight once it ends. Undefined when the policy does not read, or
 * nothing was found: the caller then leads (`cache.lead`) in the same turn as the last check.
 */
export async function lookUpCached<T>(
  cache: ResponseCache,
  key: string,
  policy: CachePolicy,
  signal: AbortSignal,
  read: (key: string) => Promise<T | undefined>,
): Promise<T | undefined> {
  if (!policy.read) return undefined;
  const stored = await read(key);
  if (stored !== undefined) return stored;
  // No turn passes between finding no identical request in flight and the caller's `lead`.
  const leader = cache.follow<T>(key, signal);
  return leader === undefined ? undefined : await leader;
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
