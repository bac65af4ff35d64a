import { ApiError } from '../../../platform/errors.ts';

/**
 * The gateway's tool validation names faults by JSON Pointers into the ChatInput (`/tools/0/name`,
 * `/messages/2/toolCalls/0/id`, `/toolChoice/name`); an OpenAI client sent other names for those
 * places (`/tools/0/function/name`, `/messages/2/tool_calls/0/id`, `/tool_choice/function/name`).
 * This rewrites a pointer into the body the client sent, so the error's `param` is a field it
 * knows. Pointers the translation kept as they were come back unchanged.
 */
export function toOpenAIBodyPointer(pointer: string): string {
  const tool = /^\/tools\/(\d+)\/(name|description|parameters)(\/.*)?$/.exec(pointer);
  if (tool !== null) return `/tools/${tool[1]}/function/${tool[2]}${tool[3] ?? ''}`;
  const call = /^\/messages\/(\d+)\/toolCalls(?:\/(\d+)(?:\/(id|name|arguments))?)?$/.exec(pointer);
  if (call !== null) {
    const [, message, index, field] = call;
    let out = `/messages/${message}/tool_calls`;
    if (index !== undefined) out += `/${index}`;
    if (field === 'id') out += '/id';
    else if (field !== undefined) out += `/function/${field}`;
    return out;
  }
  const result = /^\/messages\/(\d+)\/toolCallId$/.exec(pointer);
  if (result !== null) return `/messages/${result[1]}/tool_call_id`;
  if (pointer === '/toolChoice') return '/tool_choice';
  if (pointer === '/toolChoice/name') return '/tool_choice/function/name';
  return pointer;
}

/** A fault found in the translated input, naming the client's own fields; other errors as they are. */
export function renameOpenAIFault(error: unknown): unknown {
  if (!(error instanceof ApiError) || !Array.isArray(error.details)) return error;
  const details = (error.details as unknown[]).map((item) =>
    isIssue(item) ? { ...item, path: toOpenAIBodyPointer(item.path) } : item,
  );
  return new ApiError(error.code, error.message, { details, cause: error });
}

function isIssue(value: unknown): value is { path: string; message: string } {
  return (
    typeof value === 'object' && value !== null && typeof (value as { path?: unknown }).path === 'string'
  );
}
