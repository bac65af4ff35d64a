import type { PlannedCandidate } from '../domain/routing.ts';
import { countChars, DEFAULT_OUTPUT_RESERVATION, estimateUsage } from '../limits/estimate-usage.ts';
import type { ChatMessage } from '../providers/provider.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import type { RequestScope } from './request-scope.ts';

export interface AdmissionInput {
  /** The request's texts, or a function giving them: only read when the app has limits. */
  texts: readonly string[] | (() => readonly string[]);
  /** Output tokens to reserve: the request's maxTokens, 0 for embeddings, or the default reservation. */
  maxOutputTokens: number | undefined;
}

/**
 * Reserves the app's limits for this request (429 when a limit is reached), priced at the first
 * candidate's rates. The reservation is settled when the request is recorded.
 */
export async function admitRequest(
  deps: GatewayDeps,
  scope: RequestScope,
  candidates: readonly PlannedCandidate[],
  input: AdmissionInput,
): Promise<void> {
  const limits = deps.limiter.limitsFor(scope.app);
  if (Object.keys(limits).length === 0) return;
  const first = candidates[0] as PlannedCandidate;
  const { price } = deps.priceBook.resolve(deps.registry.adapter(first.provider).kind, first.model);
  const texts = typeof input.texts === 'function' ? input.texts() : input.texts;
  const estimate = estimateUsage(
    countChars(texts),
    input.maxOutputTokens ?? DEFAULT_OUTPUT_RESERVATION,
    price,
  );
  scope.admission = await deps.limiter.admit(scope.app, estimate);
  Object.assign(scope.responseHeaders, scope.admission.headers);
}

export function messageTexts(messages: readonly ChatMessage[]): string[] {
  return messages.map((m) => m.content);
}
