import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { toApiError } from '../../../platform/error-handler.ts';
import { ApiError, type ErrorEnvelope } from '../../../platform/errors.ts';
import { passUpstreamRejection } from '../upstream-rejection.ts';

/**
 * The gateway's errors in Google's shape (google.rpc.Status as the Gemini API writes it):
 * `{error: {code, message, status, details?}}`, where `status` is the canonical code's name
 * (CONTRACT 6.3). Google has no 502: a failed upstream is 503 `UNAVAILABLE`, the gateway's own
 * fault 500 `INTERNAL` (6.9). A 429 carries `Retry-After` and a `google.rpc.RetryInfo` detail,
 * which Google's SDKs and Gemini CLI read to back off (6.1).
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

/** Seconds a client is told to wait when neither the gateway nor the upstream said how long. */
const DEFAULT_RETRY_SECONDS = 1;

/**
 * What a prompt past the model's window reads like in each vendor's 400 (OpenAI's
 * `context_length_exceeded`, Anthropic's `prompt is too long`, Google's own), with the figures
 * when the message gives them.
 */
const OVERFLOW =
  /context[_ ]length|context window|prompt is too long|input token count|too many (input )?tokens/i;
const FIGURES = /(\d[\d,]*)\s*tokens?\s*>\s*(\d[\d,]*)|(\d[\d,]*) tokens.*?maximum[^\d]*(\d[\d,]*)/i;
/** OpenAI's wording names the window first: `maximum context length is M tokens … resulted in N tokens`. */
/** Google's own: `The input token count (N) exceeds the maximum number of tokens allowed (M).` */
const GOOGLE_FIGURES = /\((\d+)\) exceeds the maximum number of tokens allowed \((\d+)\)/;
const OPENAI_FIGURES = /maximum context length is (\d[\d,]*) tokens.*?(\d[\d,]*) tokens/is;

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
  const upstreamStatus = (error.details as { status?: unknown } | undefined)?.status;
  let status = error.statusCode;
  if (error.code === 'upstream_error' || error.code === 'json_validation_failed') status = 503;
  if (error.code === 'upstream_error' && upstreamStatus === 429) status = 429;
  if (error.code === 'provider_unavailable' || error.code === 'shutting_down') status = 503;
  const message = status === 400 ? (overflowMessage(error.message) ?? error.message) : error.message;
  const body: GeminiErrorBody = {
    error: {
      code: status,
      message,
      status: STATUS_NAMES[status] ?? (status < 500 ? 'FAILED_PRECONDITION' : 'INTERNAL'),
    },
  };
  if (status === 429) {
    const seconds = retrySeconds(headers['retry-after']);
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
  const apiError = passUpstreamRejection(toApiError(error));
  if (apiError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
  const answer = toGeminiError(apiError);
  return reply
    .code(answer.status)
    .headers(answer.headers)
    .type('application/json; charset=utf-8')
    .send(answer.body);
}

/** Google's words for a prompt past the window, with the counts when the upstream gave them. */
function overflowMessage(message: string): string | undefined {
  // The figures are near the start of every vendor's message; a bounded head keeps the scans linear.
  const head = message.slice(0, 2000);
  if (!OVERFLOW.test(head)) return undefined;
  const google = GOOGLE_FIGURES.exec(head);
  const openai = OPENAI_FIGURES.exec(head);
  const figures = FIGURES.exec(head);
  const count = google?.[1] ?? openai?.[2] ?? figures?.[1] ?? figures?.[3];
  const limit = google?.[2] ?? openai?.[1] ?? figures?.[2] ?? figures?.[4];
  if (count === undefined || limit === undefined)
    return `The input token count exceeds the maximum number of tokens allowed. (${message})`;
  const plain = (n: string) => n.replaceAll(',', '');
  return `The input token count (${plain(count)}) exceeds the maximum number of tokens allowed (${plain(limit)}).`;
}

function retrySeconds(header: string | undefined): number {
  const seconds = header === undefined ? Number.NaN : Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds) : DEFAULT_RETRY_SECONDS;
}
