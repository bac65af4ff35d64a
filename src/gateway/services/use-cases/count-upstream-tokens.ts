import type { ModelAddress } from '../../domain/model-addressing.ts';
import { ProviderError } from '../../providers/provider-error.ts';
import type { GatewayDeps } from '../gateway-deps.ts';
import { planOrFail } from '../run/plan-or-fail.ts';
import { configuredKeys } from '../upstream/upstream-caller.ts';
import { toGatewayError } from '../upstream/upstream-error-mapping.ts';

/**
 * The Gemini door's `:countTokens` (CONTRACT 6.3) where the route's first slot can count with
 * Google (a gemini slot, a vertex slot's Gemini model): the client's body goes there as its bytes, the model in the path, and
 * Google's answer comes back as its text; undefined where the first slot cannot (every other kind,
 * which the door counts with the gateway's tokenizer). A count is free and answers no prompt: it
 * is not retried, falls over to no other slot, and is not recorded. A failure is the gateway's
 * error for that upstream (an upstream's 400 with its own message), as a chat's would be.
 */
export async function countUpstreamTokens(
  deps: GatewayDeps,
  address: ModelAddress,
  body: Buffer,
  context: { signal: AbortSignal; requestId: string },
): Promise<string | undefined> {
  const [first] = planOrFail(deps, { operation: 'chat', ...address, tools: false });
  if (first === undefined) return undefined;
  const adapter = deps.registry.adapter(first.provider);
  if (adapter.countGeminiTokens === undefined) return undefined;
  try {
    return await adapter.countGeminiTokens(first.model, body, {
      ...context,
      attempt: 0,
      metadata: undefined,
    });
  } catch (error) {
    const failure = error instanceof ProviderError ? error.failure : 'internal';
    const status = error instanceof ProviderError ? (error.status ?? null) : null;
    throw toGatewayError(
      error,
      [{ provider: first.provider, model: first.model, status, failure }],
      configuredKeys(deps.registry, first.provider),
    );
  }
}
