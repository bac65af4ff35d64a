import { readFileSync } from 'node:fs';
import { ConfigError } from '../../config/config-error.ts';

/** An OpenID Provider's discovery document (OpenID Connect Discovery 1.0 §3), checked. */
export type OpenIdConfiguration = Record<string, unknown> & {
  issuer: string;
  jwks_uri: string;
  response_types_supported: string[];
};

const SETTING = 'IDENTITY_DISCOVERY_FILE';
/** Members that hold a list of strings (OIDC Discovery §3, RFC 8414 §2). */
const LIST_MEMBERS = new Set([
  'scopes_supported',
  'response_types_supported',
  'response_modes_supported',
  'grant_types_supported',
  'subject_types_supported',
  'claims_supported',
  'claim_types_supported',
  'display_values_supported',
  'ui_locales_supported',
  'claims_locales_supported',
  'acr_values_supported',
]);
const isListMember = (key: string) =>
  LIST_MEMBERS.has(key) || key.endsWith('_values_supported') || key.endsWith('_methods_supported');
const isUrlMember = (key: string) =>
  key.endsWith('_endpoint') ||
  key.endsWith('_uri') ||
  key === 'service_documentation' ||
  key === 'check_session_iframe';

/**
 * Reads and checks the identity provider's discovery document once, at start-up. A document an
 * OAuth client could not use (no issuer, no keys, relative URLs, wrong types) stops start-up with
 * a message naming IDENTITY_DISCOVERY_FILE, rather than being published and failing later.
 */
export function loadIdentityDiscovery(file: string): OpenIdConfiguration {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError(SETTING, `cannot be read: ${file}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(SETTING, `is not valid JSON (${file}): ${(error as Error).message}`);
  }
  const problems = checkOpenIdConfiguration(document);
  if (problems.length > 0) {
    throw new ConfigError(
      SETTING,
      `is not a usable OpenID discovery document (${file}): ${problems.join('; ')}`,
    );
  }
  return document as OpenIdConfiguration;
}

/** Every problem found, so one start-up attempt reports them all. */
export function checkOpenIdConfiguration(document: unknown): string[] {
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    return ['must be a JSON object'];
  const doc = document as Record<string, unknown>;
  const problems: string[] = [];
  const issuer = doc.issuer;
  if (typeof issuer !== 'string') problems.push('issuer is required');
  else problems.push(...checkIssuer(issuer));

  const grants = Array.isArray(doc.grant_types_supported) ? doc.grant_types_supported : undefined;
  // RFC 8414 §2: the authorization endpoint is required unless no supported grant uses it, the
  // token endpoint unless only the implicit grant is supported.
  const needsAuthorization =
    grants === undefined || grants.some((g) => g === 'authorization_code' || g === 'implicit');
  const needsToken = grants === undefined || grants.some((g) => g !== 'implicit');
  const required: [string, boolean][] = [
    ['authorization_endpoint', needsAuthorization],
    ['token_endpoint', needsToken],
    ['jwks_uri', true],
    ['response_types_supported', true],
    ['subject_types_supported', true],
    ['id_token_signing_alg_values_supported', true],
  ];
  for (const [key, isRequired] of required) {
    if (isRequired && doc[key] === undefined) problems.push(`${key} is required`);
  }
  for (const [key, value] of Object.entries(doc)) {
    if (isUrlMember(key) && !isAbsoluteUrl(value)) problems.push(`${key} must be an absolute https URL`);
    if (isListMember(key) && !isStringList(value))
      problems.push(`${key} must be a non-empty array of strings`);
  }
  return problems;
}

function checkIssuer(issuer: string): string[] {
  if (!URL.canParse(issuer)) return ['issuer must be an absolute URL'];
  const url = new URL(issuer);
  const problems: string[] = [];
  // OIDC Discovery §3: https, no query or fragment (http only for a local identity provider).
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLocalHost(url.hostname))) {
    problems.push('issuer must use https');
  }
  if (url.search !== '' || url.hash !== '' || issuer.includes('?') || issuer.includes('#')) {
    problems.push('issuer must not have a query or fragment');
  }
  return problems;
}

function isAbsoluteUrl(value: unknown): boolean {
  if (typeof value !== 'string' || !URL.canParse(value)) return false;
  const url = new URL(value);
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLocalHost(url.hostname));
}

function isStringList(value: unknown): boolean {
  return (
    Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string' && item !== '')
  );
}

function isLocalHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';
}
