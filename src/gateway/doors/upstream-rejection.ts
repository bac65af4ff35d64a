import { ApiError } from '../../platform/errors.ts';

/**
 * On a vendor door, an upstream's own 400 or 404 (an unknown model, a prompt too long) is answered
 * with that status and the upstream's message (secrets removed: services/upstream-error-mapping.ts),
 * in the door's shape, so that the vendor's SDK raises BadRequestError or NotFoundError and does
 * not retry, as it does a 502 (contract 5.2, 5.9). The native API keeps the 502 `upstream_error`
 * of section 2, whose message names the provider and status and adds the upstream's message.
 */
export function passUpstreamRejection(error: ApiError): ApiError {
  if (error.code !== 'upstream_error') return error;
  const details = error.details as { status?: unknown; upstreamMessage?: unknown } | undefined;
  const status = details?.status;
  if (status !== 400 && status !== 404) return error;
  const message = typeof details?.upstreamMessage === 'string' ? details.upstreamMessage : error.message;
  return new ApiError(status === 404 ? 'not_found' : 'invalid_request', message);
}
