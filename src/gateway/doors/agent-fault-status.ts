import type { ApiError } from '../../platform/errors.ts';
import { retryAfterSeconds } from '../domain/agent-fault.ts';
import { AgentFaultError, faultOf } from '../services/upstream/agent-fault-error.ts';
import { passUpstreamRejection } from './upstream-rejection.ts';

/**
 * The status and headers a vendor door answers an error with (CONTRACT 6.1): an upstream's rate
 * limit that outlasted the retries is a 429 with `Retry-After` (whole seconds) and `retry-after-ms`
 * (which the OpenAI and Anthropic SDKs read first), as the gateway's own limits are; an upstream's
 * context overflow is a 400; any other upstream 400 or 404 keeps its status and message
 * (upstream-rejection.ts). The fault goes along, so that each door's body writer says it in its
 * vendor's words (`faultOf`); the native API never comes here and keeps section 2's 502.
 */
export function toDoorError(error: ApiError): ApiError {
  const fault = faultOf(error);
  if (fault === undefined) return passUpstreamRejection(error);
  if (fault.kind === 'context_overflow') {
    return new AgentFaultError('invalid_request', fault.message ?? error.message, fault, { cause: error });
  }
  const timing = {
    'retry-after': String(retryAfterSeconds(fault.retryAfterMs)),
    'retry-after-ms': String(Math.ceil(fault.retryAfterMs)),
  };
  if (error.code === 'rate_limited') {
    // The gateway's own limit: its headers (the limit state) stay, its Retry-After too.
    return new AgentFaultError('rate_limited', error.message, fault, {
      headers: { ...timing, ...error.headers },
      details: error.details,
      cause: error,
    });
  }
  return new AgentFaultError('rate_limited', error.message, fault, { headers: timing, cause: error });
}
