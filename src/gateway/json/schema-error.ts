import { ApiError } from '../../platform/errors.ts';

/** The 400 for a caller's schema the gateway will not use; `path` is a JSON Pointer into the body. */
export function schemaError(message: string, path = '/schema'): ApiError {
  return new ApiError('invalid_request', 'schema is not a usable JSON Schema', {
    details: [{ path, message }],
  });
}

/** Appends one reference token to a JSON Pointer (RFC 6901 escaping). */
export function childPointer(pointer: string, key: string | number): string {
  return `${pointer}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
}
