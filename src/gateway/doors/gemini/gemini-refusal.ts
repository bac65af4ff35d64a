import { ApiError } from '../../../platform/errors.ts';

/** A 400 `INVALID_ARGUMENT` naming the field as the client wrote it (`contents[2].parts[0]`). */
export function refuseGeminiField(field: string, message: string): ApiError {
  return new ApiError('invalid_request', `Invalid value at '${field}': ${message}`);
}
