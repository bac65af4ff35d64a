import { type ApiError, type ErrorEnvelope, errorStatus } from '../../platform/errors.ts';
import { faultOf } from '../services/upstream/agent-fault-error.ts';
import { withOpenAIFault } from './openai-fault-body.ts';
import { pointerToParam } from './openai-refusal.ts';

/** OpenAI's error object: `{error: {message, type, param, code}}` (the SDKs' `APIError` fields). */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

/**
 * OpenAI's `type` for each status. The HTTP status is the native route's (the SDKs pick their
 * typed error, BadRequestError, AuthenticationError, RateLimitError, InternalServerError…, by
 * status alone); `code` is the gateway's own catalogue code, which says more than OpenAI's
 * few codes could (`json_validation_failed`, `upstream_timeout`, `provider_unavailable`…).
 */
function typeForStatus(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

const MAX_LISTED_ISSUES = 5;

/** The native envelope (`{error: {code, message, details?}}`) in OpenAI's shape, for the same status. */
export function openAIErrorBody(status: number, envelope: ErrorEnvelope): OpenAIErrorBody {
  const { code, message, details } = envelope.error;
  const issues = fieldIssues(details);
  const first = issues[0];
  // OpenAI names one parameter; every failing field still reaches the message.
  const text =
    issues.length === 0
      ? message
      : issues
          .slice(0, MAX_LISTED_ISSUES)
          .map((issue) => `${pointerToParam(issue.path) || 'body'}: ${issue.message}`)
          .join('; ') +
        (issues.length > MAX_LISTED_ISSUES ? ` (and ${issues.length - MAX_LISTED_ISSUES} more)` : '');
  return {
    error: {
      message: text,
      type: typeForStatus(status),
      param: first === undefined || first.path === '' ? null : pointerToParam(first.path),
      code,
    },
  };
}

/** The body of an error a door answers: the envelope in OpenAI's shape, a fault agents act on in OpenAI's words. */
export function openAIDoorErrorBody(error: ApiError): OpenAIErrorBody {
  return withOpenAIFault(openAIErrorBody(error.statusCode, error.toEnvelope()), faultOf(error));
}

/** An error inside a stream, which has no status of its own: the status its code owns decides the type. */
export function openAIErrorBodyFromEnvelope(envelope: ErrorEnvelope): OpenAIErrorBody {
  return openAIErrorBody(errorStatus[envelope.error.code], envelope);
}

function fieldIssues(details: unknown): { path: string; message: string }[] {
  if (!Array.isArray(details)) return [];
  return details.filter(
    (item): item is { path: string; message: string } =>
      typeof item === 'object' &&
      item !== null &&
      typeof item.path === 'string' &&
      typeof item.message === 'string',
  );
}
