import { ApiError } from '../../platform/errors.ts';
import { loadTokenizer } from '../domain/token-count.ts';
import type { EmbedBody } from '../http/schemas.ts';
import type { EmbeddingVector } from '../providers/provider.ts';
import { admitRequest } from './admit-request.ts';
import { elapsedMs, scopeUsage, withRecording } from './finish-request.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import { planOrFail } from './plan-or-fail.ts';
import type { RequestScope } from './request-scope.ts';
import { accountAnsweredCall } from './usage-accounting.ts';

export interface EmbedAnswer {
  id: string;
  provider: string;
  model: string;
  embeddings: EmbeddingVector[];
  usage: ReturnType<typeof scopeUsage>;
  latencyMs: number;
}

/** POST /v1/embed: one vector per input string, in input order. */
export async function runEmbed(
  deps: GatewayDeps,
  body: EmbedBody,
  scope: RequestScope,
): Promise<EmbedAnswer> {
  const inputs = typeof body.input === 'string' ? [body.input] : body.input;
  if (inputs.length > deps.config.maxEmbedInputs) {
    const message = `must have at most ${deps.config.maxEmbedInputs} items`;
    throw new ApiError('invalid_request', `input ${message}`, { details: [{ path: '/input', message }] });
  }
  const candidates = planOrFail(deps, { operation: 'embed', provider: body.provider, model: body.model });
  await admitRequest(deps, scope, candidates, { texts: inputs, maxOutputTokens: 0 });
  return withRecording(deps, scope, async (outcome) => {
    const success = await deps.caller.call(candidates, scope, (adapter, candidate, context) =>
      adapter.embed({ model: candidate.model, inputs }, context),
    );
    scope.upstreamFirstByteAt = scope.upstreamDoneAt = deps.clock.monotonic();
    const result = success.value;
    await accountAnsweredCall(
      deps,
      scope,
      {
        provider: success.candidate.provider,
        adapter: success.adapter,
        model: result.model,
        reported:
          result.usage === undefined ? undefined : { inputTokens: result.usage.inputTokens, outputTokens: 0 },
        estimate: async () => {
          const tokenizer = await loadTokenizer();
          return {
            inputTokens: await tokenizer.count(inputs),
            outputTokens: 0,
          };
        },
        startedAt: success.startedAt,
      },
      outcome,
    );
    if (result.vectors.length !== inputs.length) {
      const provider = success.candidate.provider;
      throw new ApiError(
        'upstream_error',
        `${provider} returned ${result.vectors.length} vectors for ${inputs.length} inputs`,
        {
          details: { provider },
        },
      );
    }
    return {
      id: scope.id,
      provider: success.candidate.provider,
      model: result.model,
      embeddings: result.vectors,
      usage: scopeUsage(scope),
      latencyMs: elapsedMs(deps, scope),
    };
  });
}
