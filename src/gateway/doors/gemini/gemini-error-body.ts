import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { toApiError } from '../../../platform/error-handler.ts';
import { ApiError, type ErrorEnvelope } from '../../../platform/errors.ts';
import {
  type ContextOverflowFault,
  DEFAULT_RETRY_AFTER_MS,
  readOverflowMessage,
  retryAfterSeconds,
} from '../../domain/agent-fault.ts';
import { faultOf } from '../../services/upstream/agent-fault-error.ts';
import { toDoorError } from '../agent-fault-status.ts';

/**
 * The gateway's errors in Google's shape (google.rpc.Status as the Gemini API writes it):
 * `{error: {code, message, status, details?}}`, where `status` is the canonical code's name
 * (CONTRACT 6.3). Google has no 502: a failed upstream is 503 `UNAVAILABLE`, the gateway's own
 * fault 500 `INTERNAL` (6.9). A 429 carries `Retry-After` and a `google.rpc.RetryInfo` detail,
 * which Google's SDKs and Gemini CLI read to back off (6.1). The agent faults (an upstream's rate
 * limit that outlasted the retries, a prompt past the window: domain/agent-fault.ts) are said in
 * Google's words, as each door says them in its vendor's.
 */
export interface GeminiErrorBody {
  error: { code: number; message: string; status: string; details?: Record<string, unknown>[] };
}

/** google.rpc.Code names by the HTTP status Google's API answers them with. */
const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'UNIMPLEMENTED',
  408: 'DEADLINE_EXCEEDED',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  431: 'INVALID_ARGUMENT',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';

/** The HTTP status and the body for an error, with the headers it needs. */
export interface GeminiError {
  status: number;
  headers: Record<string, string>;
  body: GeminiErrorBody;
}

/**
 * An error the gateway answers with, as Google's API would answer it: the status its code owns,
 * but a failed or unavailable upstream is 503 and an upstream's rate limit that outlasted the
 * retries 429; a prompt too long is Google's own 400 wording.
 */
export function toGeminiError(error: ApiError): GeminiError {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(error.headers ?? {})) headers[name] = String(value);
  const fault = faultOf(error) ?? (error.statusCode === 400 ? readOverflowMessage(error.message) : undefined);
  let status = error.statusCode;
  if (error.code === 'upstream_error' || error.code === 'json_validation_failed') status = 503;
  if (error.code === 'provider_unavailable' || error.code === 'shutting_down') status = 503;
  // An upstream's 429 that is no agent fault (a daily quota: not worth retrying soon) is still Google's 429.
  const upstreamStatus = (error.details as { status?: unknown } | undefined)?.status;
  if (fault?.kind === 'rate_limit' || (error.code === 'upstream_error' && upstreamStatus === 429))
    status = 429;
  const message = fault?.kind === 'context_overflow' ? overflowMessage(fault) : error.message;
  const body: GeminiErrorBody = {
    error: {
      code: status,
      message,
      status: STATUS_NAMES[status] ?? (status < 500 ? 'FAILED_PRECONDITION' : 'INTERNAL'),
    },
  };
  if (status === 429) {
    const waitMs = fault?.kind === 'rate_limit' ? fault.retryAfterMs : Number(headers['retry-after']) * 1000;
    const seconds = retryAfterSeconds(Number.isFinite(waitMs) ? waitMs : DEFAULT_RETRY_AFTER_MS);
    headers['retry-after'] = String(seconds);
    body.error.details = [{ '@type': RETRY_INFO, retryDelay: `${seconds}s` }];
  }
  return { status, headers, body };
}

/** A failure after the first chunk: the error object Google's API ends a stream with. */
export function toGeminiStreamError(envelope: ErrorEnvelope): GeminiErrorBody {
  const { code, message, details } = envelope.error;
  return toGeminiError(new ApiError(code, message, details === undefined ? {} : { details })).body;
}

/**
 * The error handler of the door's scope: every failure there (the credential check's 401,
 * Fastify's own 400/413/415, the use case's errors) in Google's shape; an upstream's own 400 or
 * 404 keeps its status and message (upstream-rejection.ts).
 */
export function geminiErrorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const apiError = toDoorError(toApiError(error));
  if (apiError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
  const answer = toGeminiError(apiError);
  return reply
    .code(answer.status)
    .headers(answer.headers)
    .type('application/json; charset=utf-8')
    .send(answer.body);
}

/** Google's words for a prompt past the window, with the counts when they are known (6.1, 6.9). */
function overflowMessage(fault: ContextOverflowFault): string {
  if (fault.promptTokens === undefined || fault.maxTokens === undefined)
    return 'The input token count exceeds the maximum number of tokens allowed.';
  return `The input token count (${fault.promptTokens}) exceeds the maximum number of tokens allowed (${fault.maxTokens}).`;
}
