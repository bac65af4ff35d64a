import { ApiError } from '../../platform/errors.ts';
import { ProviderError } from '../providers/provider-error.ts';
import { ClientClosedError } from './client-closed-error.ts';

export interface FailedCall {
  provider: string;
  model: string;
  status: number | null;
  failure: string;
  /** The slot's deployment that was called (CONTRACT 5.6); absent for a slot without deployments. */
  deployment?: string;
}

/**
 * The error a caller sees when no candidate answered: which provider failed and why, from the
 * last failure, with every attempt listed. Never the upstream's body or key.
 */
export function toGatewayError(last: unknown, failures: readonly FailedCall[]): ApiError {
  if (last instanceof ApiError) return last;
  if (!(last instanceof ProviderError)) {
    return new ApiError('internal_error', 'the gateway failed while calling the upstream', { cause: last });
  }
  if (last.failure === 'aborted') return new ClientClosedError();
  const details = { provider: last.slot, status: last.status ?? null, attempts: failures };
  const tries = failures.length === 1 ? '' : ` after ${failures.length} attempts`;
  if (last.failure === 'timeout') {
    return new ApiError('upstream_timeout', `${last.slot} did not answer in time${tries}`, { details });
  }
  if (last.failure === 'http' && !last.retryable) {
    return new ApiError('upstream_error', `${last.slot} rejected the request (HTTP ${last.status})`, {
      details,
    });
  }
  const why = last.status === undefined ? last.failure.replace('_', ' ') : `HTTP ${last.status}`;
  return new ApiError('upstream_error', `${last.slot} failed (${why})${tries}`, { details });
}
