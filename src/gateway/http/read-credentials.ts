import type { IncomingHttpHeaders } from 'node:http';
import { constantTimeEqual } from '../../platform/constant-time.ts';

/** An app name and its secret, as one request presented them. */
export interface Credentials {
  app: string;
  secret: string;
}

/** What the headers said: one credential, or why they cannot be used (always a 401). */
export type CredentialReading = { ok: true; credentials: Credentials } | { ok: false; reason: string };

/** The forms a client may use, named in every refusal so that a stranger knows what to send. */
export const ACCEPTED_FORMS =
  'send "Authorization: Bearer <app>:<secret>", "x-api-key: <app>:<secret>", "x-goog-api-key: <app>:<secret>", or the x-gateway-app and x-gateway-secret headers';

/** Longest app name or secret header kept; longer is treated as absent. */
const MAX_HEADER_LENGTH = 512;
/** `Bearer ` plus app, ':' and secret. */
const MAX_COMBINED_LENGTH = 2 * MAX_HEADER_LENGTH + 8;

/** The auth scheme is case-insensitive (RFC 9110 11.1); one or more spaces follow it. */
const BEARER = /^bearer +/i;

function single(value: string | string[] | undefined, limit: number): string | undefined {
  if (typeof value !== 'string' || value === '' || value.length > limit) return undefined;
  return value;
}

/** `<app>:<secret>`, split at the first ':' (a secret may contain ':'; an app name may not). */
function splitPair(value: string): Credentials | undefined {
  const colon = value.indexOf(':');
  if (colon <= 0 || colon === value.length - 1) return undefined;
  return { app: value.slice(0, colon), secret: value.slice(colon + 1) };
}

function sameCredentials(a: Credentials, b: Credentials): boolean {
  // Both secrets came from this request, but compare them as every secret is compared.
  return constantTimeEqual(a.secret, b.secret) && a.app === b.app;
}

/** One `<app>:<secret>` form, added to `found` when present; a refusal when present and malformed. */
function readKeyForm(form: string, given: unknown, found: Credentials[]): CredentialReading | undefined {
  if (given === undefined) return undefined;
  const value = single(given as string | string[], MAX_COMBINED_LENGTH);
  const pair = value === undefined ? undefined : splitPair(value);
  if (pair === undefined) return { ok: false, reason: `${form} is not <app>:<secret>; ${ACCEPTED_FORMS}` };
  found.push(pair);
  return undefined;
}

/**
 * Reads the request's credentials from any of the three forms. Every form present must be
 * complete and well formed, and when several are present they must name the same credential:
 * a request whose headers disagree is refused rather than guessed at.
 */
export function readCredentials(headers: IncomingHttpHeaders, queryKey?: unknown): CredentialReading {
  const found: Credentials[] = [];

  const app = headers['x-gateway-app'];
  const secret = headers['x-gateway-secret'];
  if (app !== undefined || secret !== undefined) {
    const appValue = single(app, MAX_HEADER_LENGTH);
    const secretValue = single(secret, MAX_HEADER_LENGTH);
    if (appValue === undefined || secretValue === undefined) {
      return {
        ok: false,
        reason: `x-gateway-app and x-gateway-secret must both be given, each up to ${MAX_HEADER_LENGTH} characters; ${ACCEPTED_FORMS}`,
      };
    }
    found.push({ app: appValue, secret: secretValue });
  }

  const authorization = headers.authorization;
  if (authorization !== undefined) {
    const value = single(authorization, MAX_COMBINED_LENGTH);
    const match = value === undefined ? null : BEARER.exec(value);
    const pair = match === null || value === undefined ? undefined : splitPair(value.slice(match[0].length));
    if (pair === undefined)
      return {
        ok: false,
        reason: `the Authorization header is not a Bearer <app>:<secret>; ${ACCEPTED_FORMS}`,
      };
    found.push(pair);
  }

  // Anthropic's SDKs send x-api-key; Google's x-goog-api-key, or `?key=` (CONTRACT 6.3).
  const keyRefusal =
    readKeyForm('the x-api-key header', headers['x-api-key'], found) ??
    readKeyForm('the x-goog-api-key header', headers['x-goog-api-key'], found) ??
    readKeyForm('the key query parameter', queryKey, found);
  if (keyRefusal !== undefined) return keyRefusal;

  const first = found[0];
  if (first === undefined) return { ok: false, reason: `credentials are required: ${ACCEPTED_FORMS}` };
  for (let other = 1; other < found.length; other++) {
    if (!sameCredentials(first, found[other] as Credentials)) {
      return { ok: false, reason: `the credential headers name different credentials; ${ACCEPTED_FORMS}` };
    }
  }
  return { ok: true, credentials: first };
}
