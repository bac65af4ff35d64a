/**
 * The one catalogue of error codes. Each code owns its HTTP status, so no route
 * or service decides a status on its own.
 */
export const errorStatus = {
  invalid_request: 400,
  invalid_json: 400,
  unsupported_capability: 400,
  invalid_email: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  upstream_failure: 500,
  upstream_error: 502,
  json_validation_failed: 502,
  provider_unavailable: 503,
  shutting_down: 503,
  service_unavailable: 503,
  upstream_timeout: 504,
} as const;

export type ErrorCode = keyof typeof errorStatus;

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
