import type { FastifyReply } from 'fastify';
import type { JsonInput } from '../domain/use-case-inputs.ts';
import type { GatewayDeps } from '../services/gateway-deps.ts';
import {
  CACHE_HEADER,
  CACHE_SAVED_HEADER,
  type CachePolicy,
} from '../services/response-cache/response-cache.ts';
import type { CacheOutcome } from '../services/response-cache/run-cached-chat.ts';
import { runCachedJson } from '../services/response-cache/run-cached-json.ts';
import type { RequestRun } from '../services/run/request-run.ts';
import { type JsonAnswer, runJson } from '../services/use-cases/run-json.ts';
import { formatUsd } from './cost-header.ts';

/**
 * What the cache will say before it looked (`miss`, or `bypass` when it neither reads nor
 * writes): said on an error answer too, since the reply's headers reach the doors' error handler.
 */
export function sayCacheExpected(reply: FastifyReply, policy: CachePolicy): void {
  reply.header(CACHE_HEADER, policy.read || policy.write ? 'miss' : 'bypass');
}

/** What the cache did (CONTRACT 5.5), on the answer: `x-gateway-cache`, and on a hit the cost it saved. */
export function sayCacheOutcome(
  reply: FastifyReply,
  run: RequestRun,
  cached: { outcome: CacheOutcome; savedUsd?: number | undefined },
): void {
  run.responseHeaders[CACHE_HEADER] = cached.outcome;
  reply.header(CACHE_HEADER, cached.outcome);
  if (cached.savedUsd !== undefined) run.responseHeaders[CACHE_SAVED_HEADER] = formatUsd(cached.savedUsd);
}

/**
 * The structured-output use case for a door (`/v1/json`, a `response_format`): through the
 * response cache where `policy` turns it on, the answer's headers saying what it did; else as is.
 */
export async function answerJson(
  reply: FastifyReply,
  deps: GatewayDeps,
  input: JsonInput,
  run: RequestRun,
  policy: CachePolicy | undefined,
): Promise<JsonAnswer> {
  if (policy === undefined) return runJson(deps, input, run);
  sayCacheExpected(reply, policy);
  const cached = await runCachedJson(deps, input, run, policy);
  sayCacheOutcome(reply, run, cached);
  return cached.answer;
}
