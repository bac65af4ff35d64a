import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DependencyUnavailableError } from './dependency-unavailable.ts';
import { ApiError, type ErrorCode, errorStatus, toEnvelope } from './errors.ts';
import { toFieldIssues } from './validation-issues.ts';

/** Fastify's own error codes, mapped onto the catalogue. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_request',
  FST_ERR_CTP_INVALID_TYPE: 'unsupported_media_type',
};

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  invalid_json: 'request body is not valid JSON',
  payload_too_large: 'request body is too large',
  unsupported_media_type: 'request body must be application/json',
};

/** Converts any thrown error into the envelope; 5xx answers never carry internal text. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof DependencyUnavailableError) {
    return new ApiError('service_unavailable', error.message, {
      headers: { 'retry-after': String(error.retryAfterSeconds) },
      cause: error,
    });
  }
  const fastifyError = error as Partial<FastifyError> & { validation?: unknown };
  if (Array.isArray(fastifyError.validation)) {
    const details = toFieldIssues(fastifyError.validation);
    const first = details[0];
    const summary =
      first === undefined ? 'request body is invalid' : `${first.path || 'body'} ${first.message}`;
    return new ApiError('invalid_request', summary, { details });
  }
  const mapped =
    fastifyError.code !== undefined && Object.hasOwn(FASTIFY_CODES, fastifyError.code)
      ? FASTIFY_CODES[fastifyError.code]
      : undefined;
  if (mapped !== undefined) return new ApiError(mapped, MESSAGES[mapped] ?? fastifyError.message ?? mapped);
  if (error instanceof SyntaxError && (fastifyError.statusCode === 400 || 'body' in error)) {
    return new ApiError('invalid_json', MESSAGES.invalid_json as string);
  }
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    // A client error Fastify raised that the catalogue has no better name for (e.g. prototype poisoning).
    const code =
      status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'invalid_request';
    return new ApiError(code, fastifyError.message ?? 'bad request');
  }
  return new ApiError('internal_error', 'internal error', { cause: error });
}

export function sendError(
  reply: FastifyReply,
  error: ApiError,
  body: unknown = error.toEnvelope(),
): FastifyReply {
  if (error.headers !== undefined) reply.headers(error.headers);
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send(body);
}

/** An error's body for the client: the envelope, or a vendor door's shape around the same status. */
export type ErrorBodyOf = (error: ApiError, request: FastifyRequest) => unknown;

/**
 * The answer for any error: its status and headers from the catalogue, its body the envelope
 * unless `bodyOf` writes another shape; a 5xx is logged with its cause, which the client never sees.
 */
export function respondWithError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  bodyOf?: ErrorBodyOf,
): FastifyReply {
  const apiError = toApiError(error);
  if (apiError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
  return sendError(reply, apiError, bodyOf === undefined ? apiError.toEnvelope() : bodyOf(apiError, request));
}

/**
 * Fastify's `frameworkErrors`: a URL that cannot be decoded (bad percent-encoding), a path
 * parameter over its length limit. These are answered before any hook runs, so the request id
 * header is set here.
 */
export function respondToFrameworkError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  respondWithError(error, request, reply);
}

/**
 * Installs the envelope on a Fastify instance: every error, 404 and 405 answers
 * `{error: {code, message, details?}}` with the status its code owns.
 */
export function installErrorEnvelope(app: FastifyInstance): void {
  app.setErrorHandler(respondWithError);

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = allowedMethods(app, path);
    if (allowed.length > 0) {
      return sendError(
        reply,
        new ApiError('method_not_allowed', `${request.method} is not allowed on ${path}`, {
          headers: { allow: allowed.join(', ') },
        }),
      );
    }
    return reply
      .code(errorStatus.not_found)
      .send(toEnvelope('not_found', `no route for ${request.method} ${path}`));
  });
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * `hasRoute` reads its url as a route pattern, where `*`, `:` and parentheses mean wildcards,
 * parameters and regular expressions (and a malformed pattern throws). A requested path is not a
 * pattern: one with those characters cannot name a static route, so it has no allowed methods.
 */
const PATTERN_SYNTAX = /[*:()]/;

function allowedMethods(app: FastifyInstance, url: string): string[] {
  if (PATTERN_SYNTAX.test(url)) return [];
  return METHODS.filter((method) => app.hasRoute({ method, url }));
}
