import { ApiError } from '../../../platform/errors.ts';
import { DEFAULT_RETRY_AFTER_MS } from '../../domain/agent-fault.ts';
import { ProviderError } from '../../providers/provider-error.ts';
import { redactSecrets } from '../../providers/upstream-message.ts';
import { ClientClosedError } from '../run/client-closed-error.ts';
import { AgentFaultError } from './agent-fault-error.ts';

export interface FailedCall {
  provider: string;
  model: string;
  status: number | null;
  failure: string;
  /** The slot's deployment that was called (CONTRACT 5.6); absent for a slot without deployments. */
  deployment?: string;
}

/** The upstream statuses whose own message the client is given (contract 5.2, 5.9). */
const PASSED_ON_STATUSES = new Set([400, 404]);

/**
 * The error a caller sees when no candidate answered: which provider failed and why, from the
 * last failure, with every attempt listed. Never the upstream's body or key; for an upstream's 400
 * or 404, its own message (redacted at the adapter, and of `secrets`, the slot's configured keys,
 * here) is added to the message and given in `details.upstreamMessage`, so that the vendor doors
 * can answer with that status and message (doors/upstream-rejection.ts). Two of these are faults
 * agents act on (CONTRACT 6.1), kept as such for the doors (AgentFaultError): a 429 that outlasted
 * the retries, with the upstream's last Retry-After, and a 400 that says the prompt is past the
 * context window.
 */
export function toGatewayError(
  last: unknown,
  failures: readonly FailedCall[],
  secrets: readonly string[] = [],
): ApiError {
  if (last instanceof ApiError) return last;
  if (!(last instanceof ProviderError)) {
    return new ApiError('internal_error', 'the gateway failed while calling the upstream', { cause: last });
  }
  if (last.failure === 'aborted') return new ClientClosedError();
  const details = { provider: last.slot, status: last.status ?? null, attempts: failures };
  const tries = failures.length === 1 ? '' : ` after ${failures.length} attempts`;
  if (last.failure === 'credentials') {
    // The reason is the credential source's own sentence, with anything like a secret taken out.
    const deployment = failures.at(-1)?.deployment;
    const where = deployment === undefined ? last.slot : `${last.slot} (deployment ${deployment})`;
    const reason = redactSecrets(last.detail ?? 'unavailable', secrets);
    return new ApiError('upstream_error', `${where} has no credentials: ${reason}${tries}`, { details });
  }
  if (last.failure === 'timeout') {
    return new ApiError('upstream_timeout', `${last.slot} did not answer in time${tries}`, { details });
  }
  if (last.failure === 'http' && !last.retryable) {
    const passedOn =
      last.status !== undefined && PASSED_ON_STATUSES.has(last.status) && last.upstreamMessage !== undefined
        ? redactSecrets(last.upstreamMessage, secrets)
        : undefined;
    if (passedOn !== undefined) {
      const message = `${last.slot} rejected the request (HTTP ${last.status}): ${passedOn}`;
      const options = { details: { ...details, upstreamMessage: passedOn } };
      if (last.overflow !== undefined) {
        const fault = { ...last.overflow, message: passedOn };
        return new AgentFaultError('upstream_error', message, fault, options);
      }
      return new ApiError('upstream_error', message, options);
    }
    return new ApiError('upstream_error', `${last.slot} rejected the request (HTTP ${last.status})`, {
      details,
    });
  }
  const why = last.status === undefined ? last.failure.replace('_', ' ') : `HTTP ${last.status}`;
  const message = `${last.slot} failed (${why})${tries}`;
  if (last.failure === 'http' && last.status === 429) {
    const retryAfterMs = last.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
    return new AgentFaultError(
      'upstream_error',
      message,
      { kind: 'rate_limit', retryAfterMs, limit: undefined },
      {
        details,
      },
    );
  }
  return new ApiError('upstream_error', message, { details });
}
