import type { ProviderSlot } from '../../../config/config-types.ts';
import type { ApiError } from '../../../platform/errors.ts';
import type { GatewayDeps } from '../gateway-deps.ts';
import { AgentFaultError } from '../upstream/agent-fault-error.ts';
import type { FailedCall } from '../upstream/upstream-error-mapping.ts';
import { type AdmissionInput, guessInputTokens } from './request-run-inputs.ts';

/**
 * An upstream's overflow whose message gave no figures (OpenAI's Responses API says only "Your
 * input exceeds the context window of this model") gets the gateway's: the prompt's tokens as the
 * limits guess them (four characters to a token and the media's count; the tokenizer is not
 * started for a request that already failed) and the model's window from the configuration or the
 * price data (CONTRACT 6.9), so that the Anthropic door can still say "N tokens > M maximum".
 */
export function completeOverflow(error: unknown, deps: GatewayDeps, input: AdmissionInput): unknown {
  if (!(error instanceof AgentFaultError) || error.fault.kind !== 'context_overflow') return error;
  const fault = error.fault;
  if (fault.promptTokens !== undefined && fault.maxTokens !== undefined) return error;
  const last = lastCall(error);
  const kind = last === undefined ? undefined : deps.registry.adapter(last.provider as ProviderSlot).kind;
  const window =
    kind === undefined || last === undefined ? undefined : deps.priceBook.contextWindow(kind, last.model);
  const completed = {
    ...fault,
    promptTokens: fault.promptTokens ?? guessInputTokens(input),
    maxTokens: fault.maxTokens ?? window,
  };
  return new AgentFaultError(error.code, error.message, completed, {
    details: error.details,
    ...(error.headers === undefined ? {} : { headers: error.headers }),
    cause: error,
  });
}

function lastCall(error: ApiError): FailedCall | undefined {
  const attempts = (error.details as { attempts?: unknown } | undefined)?.attempts;
  return Array.isArray(attempts) ? (attempts.at(-1) as FailedCall | undefined) : undefined;
}
