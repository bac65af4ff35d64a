import type { JsonInput } from '../../domain/use-case-inputs.ts';
import type { GatewayDeps } from '../gateway-deps.ts';
import type { RequestRun } from '../run/request-run.ts';
import { type JsonAnswer, jsonInputTexts, planJson, runPlannedJson } from '../use-cases/run-json.ts';
import { admitCacheHit, lookUpCached } from './cache-hit.ts';
import type { CachedJsonAnswer, CachePolicy } from './response-cache.ts';
import type { CacheOutcome } from './run-cached-chat.ts';

export interface CachedJson {
  answer: JsonAnswer;
  outcome: CacheOutcome;
  /** On a hit: what the original answer cost, over every call it took. */
  savedUsd?: number;
}

/**
 * Structured output behind the response cache (CONTRACT 5.5, decision 0021 amended): `/v1/json`
 * and every door's `response_format`. Planned first (the schema compiled, the candidates planned),
 * since the key holds them; a hit (an entry, or with coalescing the answer of an identical
 * request in flight) is admitted against request limits only and answered without an upstream
 * call; a miss runs as without the cache, and its answer is kept: it has `data` only when the
 * output validated, so a request that failed validation keeps nothing.
 */
export async function runCachedJson(
  deps: GatewayDeps,
  input: JsonInput,
  run: RequestRun,
  policy: CachePolicy,
): Promise<CachedJson> {
  const cache = deps.responseCache;
  const schema = planJson(deps, input, run);
  const key = cache.jsonKeyOf(run.app, input, run.candidates);
  const lookup = await lookUpCached(cache, key, policy, run.signal, (at) => cache.readJson(at), KEEP_ALL);
  if (lookup.found !== undefined) return answerFromCache(lookup.found, input, run);
  const settle = lookup.settle;
  const outcome = policy.read || policy.write ? 'miss' : 'bypass';
  let answer: JsonAnswer;
  try {
    answer = await runPlannedJson(deps, input, run, schema);
  } catch (error) {
    // Followers of a failed request go upstream themselves.
    settle?.(undefined);
    throw error;
  }
  if (policy.write) {
    const entry = toCachedJson(answer);
    cache.rememberJson(key, entry, policy.ttlMs);
    settle?.(entry);
  }
  return { answer, outcome };
}

/** Every structured answer that reaches the cache validated: followers take any. */
const KEEP_ALL = (): boolean => true;

/** A hit: admitted (request limits only), recorded as a hit, answered at cost 0 with the original's usage. */
async function answerFromCache(
  hit: CachedJsonAnswer,
  input: JsonInput,
  run: RequestRun,
): Promise<CachedJson> {
  const savedUsd = hit.usage.estimatedCost;
  const admission = { texts: () => jsonInputTexts(input), maxOutputTokens: 0 };
  await admitCacheHit(run, admission, { provider: hit.provider, model: hit.model, costUsd: savedUsd });
  const answer: JsonAnswer = {
    id: run.id,
    provider: hit.provider,
    model: hit.model,
    data: hit.data,
    raw: { role: 'assistant', content: hit.raw },
    usage: { ...hit.usage, estimatedCost: 0 },
    latencyMs: run.elapsedMs(),
  };
  return { answer, outcome: 'hit', savedUsd };
}

function toCachedJson(answer: JsonAnswer): CachedJsonAnswer {
  return {
    kind: 'json',
    provider: answer.provider,
    model: answer.model,
    data: answer.data,
    raw: answer.raw.content,
    usage: answer.usage,
  };
}
