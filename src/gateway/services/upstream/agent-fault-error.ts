import { ApiError, type ApiErrorOptions, type ErrorCode } from '../../../platform/errors.ts';
import { type AgentFault, DEFAULT_RETRY_AFTER_MS } from '../../domain/agent-fault.ts';

/**
 * An error of the catalogue that is also a fault agents act on (domain/agent-fault.ts): an
 * upstream's rate limit that outlasted the retries, or its refusal of a prompt past the context
 * window. Its code and status stay section 2's (the native API answers 502 `upstream_error` as
 * before); each vendor door reads the fault and answers in its vendor's form (CONTRACT 6.1).
 */
export class AgentFaultError extends ApiError {
  readonly fault: AgentFault;

  constructor(code: ErrorCode, message: string, fault: AgentFault, options: ApiErrorOptions = {}) {
    super(code, message, options);
    this.fault = fault;
  }
}

/**
 * The fault an error is, for a door to answer in its vendor's form: an AgentFaultError's, or a
 * rate limit for the gateway's own 429 `rate_limited` (an app's or team's limit, failed credential
 * checks, a client's requests in progress), waiting what its Retry-After says.
 */
export function faultOf(error: unknown): AgentFault | undefined {
  if (error instanceof AgentFaultError) return error.fault;
  if (!(error instanceof ApiError) || error.code !== 'rate_limited') return undefined;
  const details = (typeof error.details === 'object' && error.details !== null ? error.details : {}) as {
    limit?: unknown;
    retryAfterSeconds?: unknown;
  };
  const header = Number(error.headers?.['retry-after']);
  const seconds = typeof details.retryAfterSeconds === 'number' ? details.retryAfterSeconds : header;
  const limit = typeof details.limit === 'string' ? details.limit : '';
  return {
    kind: 'rate_limit',
    retryAfterMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1_000 : DEFAULT_RETRY_AFTER_MS,
    limit: /tokens/.test(limit) ? 'tokens' : /requests/.test(limit) ? 'requests' : undefined,
  };
}
