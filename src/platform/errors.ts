/**
 * The one catalogue of error codes. Each code owns its HTTP status, so no route or service
 * decides a status on its own. It is kept in three parts, so that a code says which surface's
 * contract names it: the two surfaces each have a code for a failing upstream, and they mean
 * different things (see `GATEWAY_ERRORS` and `SITE_ERRORS`).
 */

/** Codes of the HTTP plumbing both surfaces share: malformed requests, limits, timeouts, shutdown. */
export const SHARED_ERRORS = {
  invalid_request: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  shutting_down: 503,
  service_unavailable: 503,
} as const;

/**
 * Surface A's own codes (CONTRACT 2 and 5.1), about the LLM providers it calls: `upstream_error`
 * (502) is a provider that rejected the request or kept failing, and `client_closed` (499, never
 * sent: nobody is left to read it) is the ledger's status for a request whose client left before
 * the answer ended. `guardrail_blocked` (400) is a request or answer a guard stopped (CONTRACT 6.6).
 */
export const GATEWAY_ERRORS = {
  unsupported_capability: 400,
  model_not_allowed: 403,
  guardrail_blocked: 400,
  client_closed: 499,
  upstream_error: 502,
  json_validation_failed: 502,
  provider_unavailable: 503,
  upstream_timeout: 504,
} as const;

/**
 * Surface B's own codes (CONTRACT 3): `upstream_failure` (500) is the site's subscriber store or
 * mailing-list upstream failing, a dependency of the site's own, which the site's interface
 * answers with a 500; it is not the gateway's 502 `upstream_error` about an LLM provider.
 */
export const SITE_ERRORS = {
  invalid_email: 400,
  upstream_failure: 500,
} as const;

export const errorStatus = { ...SHARED_ERRORS, ...GATEWAY_ERRORS, ...SITE_ERRORS } as const;

export type ErrorCode = keyof typeof errorStatus;

/** The codes surface A answers with (a test checks that neither surface uses the other's own codes). */
export type GatewayErrorCode = keyof typeof SHARED_ERRORS | keyof typeof GATEWAY_ERRORS;

/** One failing field: a JSON Pointer (RFC 6901) into the request body and what is wrong there. */
export interface FieldIssue {
  path: string;
  message: string;
}

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details?: unknown };
}

export interface ApiErrorOptions {
  details?: unknown;
  /** Extra response headers, e.g. Retry-After or Allow. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** An error that is meant to reach the client, in the envelope, with the status its code owns. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly details: unknown;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.statusCode = errorStatus[code];
    this.details = options.details;
    this.headers = options.headers;
  }

  toEnvelope(): ErrorEnvelope {
    return toEnvelope(this.code, this.message, this.details);
  }
}

export function toEnvelope(code: ErrorCode, message: string, details?: unknown): ErrorEnvelope {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
