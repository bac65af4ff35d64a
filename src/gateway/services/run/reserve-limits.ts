import type { FrontDoor } from '../../domain/messages.ts';
import type { PlannedCandidate } from '../../domain/routing.ts';
import type { Admission } from '../../limits/app-limiter.ts';
import { countChars, DEFAULT_OUTPUT_RESERVATION, estimateUsage } from '../../limits/estimate-usage.ts';
import type { GatewayDeps } from '../gateway-deps.ts';
import type { AdmissionInput } from './request-run-inputs.ts';

const NO_USAGE = Object.freeze({ tokens: 0, costUsd: 0 });

/**
 * Reserves an app's limits for a planned request, priced at the first candidate's rates (a cheap
 * guess the settlement corrects); undefined when the app has no limits. An answer from the
 * response cache reserves requests only (CONTRACT 5.5). Throws the 429 of a limit reached.
 */
export async function reserveLimits(
  deps: GatewayDeps,
  run: { app: string; frontDoor: FrontDoor; endUser: string | undefined },
  first: PlannedCandidate | undefined,
  input: AdmissionInput,
  fromCache: boolean,
): Promise<Admission | undefined> {
  const { app, endUser } = run;
  if (deps.limiter.scopesFor(app, endUser).length === 0) return undefined;
  const convention = run.frontDoor === 'anthropic' ? 'anthropic' : 'openai';
  if (fromCache) return deps.limiter.admit(app, NO_USAGE, convention, true, endUser);
  // A run without candidates calls no model: one request, no tokens, no cost.
  if (first === undefined) return deps.limiter.admit(app, NO_USAGE, convention, false, endUser);
  const { price } = deps.priceBook.resolve(deps.registry.adapter(first.provider).kind, first.model);
  const texts = typeof input.texts === 'function' ? input.texts() : input.texts;
  const estimate = estimateUsage(
    countChars(texts),
    input.mediaTokens?.() ?? 0,
    input.maxOutputTokens ?? DEFAULT_OUTPUT_RESERVATION,
    price,
  );
  return deps.limiter.admit(app, estimate, convention, false, endUser);
}
