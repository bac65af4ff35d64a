import { ApiError } from '../../platform/errors.ts';

/**
 * A 400 `invalid_request` naming the offending field by its JSON Pointer, as every native 400
 * does; the door's error body turns the pointer into OpenAI's `param` (`openai-error.ts`).
 */
export function refuseField(pointer: string, message: string): ApiError {
  const where = pointerToParam(pointer);
  return new ApiError('invalid_request', where === '' ? message : `${where}: ${message}`, {
    details: [{ path: pointer, message }],
  });
}

/**
 * `/messages/0/content/1/type` as OpenAI writes a parameter's place: `messages[0].content[1].type`.
 * Array indexes in brackets, names joined by dots (RFC 6901 escapes undone).
 */
export function pointerToParam(pointer: string): string {
  if (pointer === '') return '';
  let param = '';
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (/^(0|[1-9][0-9]*)$/.test(token)) param += `[${token}]`;
    else param += param === '' ? token : `.${token}`;
  }
  return param;
}
