import { ApiError } from '../../../platform/errors.ts';
import type { Tokenizer } from '../../domain/token-count.ts';
import type { ResponseUsage } from '../../domain/usage.ts';
import type { EmbedInput } from '../../domain/use-case-inputs.ts';
import type { EmbeddingVector } from '../../providers/provider.ts';
import type { GatewayDeps } from '../gateway-deps.ts';
import { countOrGuess } from '../run/count-or-guess.ts';
import type { RequestRun } from '../run/request-run.ts';

export interface EmbedAnswer {
  id: string;
  provider: string;
  model: string;
  embeddings: EmbeddingVector[];
  usage: ResponseUsage;
  latencyMs: number;
}

/** POST /v1/embed: one vector per input string, in input order. */
export async function runEmbed(deps: GatewayDeps, input: EmbedInput, run: RequestRun): Promise<EmbedAnswer> {
  const inputs = typeof input.input === 'string' ? [input.input] : input.input;
  if (inputs.length > deps.config.maxEmbedInputs) {
    const message = `must have at most ${deps.config.maxEmbedInputs} items`;
    throw new ApiError('invalid_request', `input ${message}`, { details: [{ path: '/input', message }] });
  }
  run.plan({ operation: 'embed', provider: input.provider, model: input.model });
  await run.admit({ texts: inputs, maxOutputTokens: 0 });
  return run.perform(answerEmbed, { inputs, dimensions: input.dimensions });
}

interface EmbedWork {
  inputs: readonly string[];
  dimensions: number | undefined;
}

async function answerEmbed(run: RequestRun, { inputs, dimensions }: EmbedWork): Promise<EmbedAnswer> {
  const success = await run.call(run.candidates, (adapter, candidate, context) =>
    adapter.embed(
      dimensions === undefined
        ? { model: candidate.model, inputs }
        : { model: candidate.model, inputs, dimensions },
      context,
    ),
  );
  run.markAnswered();
  const result = success.value;
  const provider = success.candidate.provider;
  await run.account({
    provider,
    adapter: success.adapter,
    model: result.model,
    reported:
      result.usage === undefined ? undefined : { inputTokens: result.usage.inputTokens, outputTokens: 0 },
    estimate: (tokenizer) => estimateEmbedUsage(tokenizer, inputs),
    startedAt: success.startedAt,
  });
  if (result.vectors.length !== inputs.length) {
    throw new ApiError(
      'upstream_error',
      `${provider} returned ${result.vectors.length} vectors for ${inputs.length} inputs`,
      { details: { provider } },
    );
  }
  return {
    id: run.id,
    provider,
    model: result.model,
    embeddings: result.vectors,
    usage: run.usage(),
    latencyMs: run.elapsedMs(),
  };
}

/** Token counts by tokenizer, for embeddings whose upstream reported none. */
async function estimateEmbedUsage(tokenizer: Tokenizer, inputs: readonly string[]) {
  const inputTokens = await countOrGuess(
    () => tokenizer.count(inputs),
    () => inputs,
  );
  return { inputTokens, outputTokens: 0 };
}
