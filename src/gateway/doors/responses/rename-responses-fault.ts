import { ApiError } from '../../../platform/errors.ts';
import type { ResponsesRequest } from './read-responses-request.ts';

/**
 * A fault the shared tool validation found, named by JSON Pointers into the ChatInput
 * (`/messages/3/toolCallId`, `/toolChoice/name`), renamed to the body the client sent: a
 * message's pointer becomes the item it was read from (`/input/5`), the tool choice
 * `/tool_choice`. A tool's pointer keeps its index into the tools the upstream was given.
 */
export function renameResponsesFault(error: unknown, request?: ResponsesRequest): unknown {
  if (!(error instanceof ApiError) || !Array.isArray(error.details)) return error;
  const details = (error.details as unknown[]).map((item) =>
    isIssue(item) ? { ...item, path: renamePointer(item.path, request?.sources ?? []) } : item,
  );
  return new ApiError(error.code, error.message, { details, cause: error });
}

function renamePointer(pointer: string, sources: readonly string[]): string {
  const message = /^\/messages\/(\d+)(\/.*)?$/.exec(pointer);
  if (message !== null) return sources[Number(message[1])] ?? '/input';
  if (pointer.startsWith('/toolChoice')) return '/tool_choice';
  return pointer;
}

function isIssue(value: unknown): value is { path: string; message: string } {
  return (
    typeof value === 'object' && value !== null && typeof (value as { path?: unknown }).path === 'string'
  );
}
