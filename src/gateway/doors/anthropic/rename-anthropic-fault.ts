import { ApiError, type FieldIssue } from '../../../platform/errors.ts';

/**
 * The shared tool validator names faults by JSON Pointers into the gateway's chat input
 * (`/tools/0/parameters/properties`, `/toolChoice/name`). On this door the client wrote
 * Anthropic's fields, so the message names those (`tools.0.input_schema.properties`,
 * `tool_choice.name`), as the door's own checks do. Message positions differ between the two
 * (`system` and each `tool_result` are messages of their own in the gateway's list), so a fault
 * in the conversation is named `messages`.
 */
export function renameAnthropicFault(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.code !== 'invalid_request' || !Array.isArray(error.details))
    return error;
  const first = (error.details as FieldIssue[])[0];
  if (first === undefined || typeof first.path !== 'string') return error;
  const field = toAnthropicField(first.path);
  const message = error.message.startsWith(`${field}:`) ? error.message : `${field}: ${error.message}`;
  return new ApiError('invalid_request', message, { details: error.details, cause: error });
}

export function toAnthropicField(pointer: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (parts[0] === 'tools') {
    if (parts[2] === 'parameters') parts[2] = 'input_schema';
    return parts.join('.') || 'tools';
  }
  if (parts[0] === 'toolChoice') return ['tool_choice', ...parts.slice(1)].join('.');
  if (parts[0] === 'messages') return 'messages';
  return parts.join('.') || 'body';
}
