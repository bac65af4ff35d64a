import { ApiError } from '../../platform/errors.ts';
import { parseEmailAddress } from './email-address.ts';

const SOURCE = /^[A-Za-z0-9][A-Za-z0-9 ._:/-]{0,63}$/;
export const DEFAULT_SOURCE = 'api';

export interface SignupBodyFields {
  email: string;
  source: string;
}

/**
 * Reads `{email, source?}` out of a parsed JSON body. Every way of not giving a usable address
 * (no body object, no `email`, not a string, not an address) is `invalid_email`. Other fields are
 * ignored: a site form may carry a honeypot or tracking fields, and refusing them would turn a
 * harmless extra into a lost subscriber.
 */
export function readSignupBody(body: unknown): SignupBodyFields {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError('invalid_email', 'the body must be a JSON object with an email field');
  }
  const fields = body as Record<string, unknown>;
  const parsed = parseEmailAddress(fields.email);
  if (!parsed.ok) throw new ApiError('invalid_email', parsed.message);
  return { email: parsed.address, source: readSource(fields.source) };
}

function readSource(value: unknown): string {
  if (value === undefined) return DEFAULT_SOURCE;
  if (typeof value === 'string' && SOURCE.test(value)) return value;
  const message =
    'must be a string of 1 to 64 letters, digits, spaces or ._:/- starting with a letter or digit';
  throw new ApiError('invalid_request', `source ${message}`, { details: [{ path: '/source', message }] });
}
