import type { ThinkingPart, ThinkingVendor } from '../../domain/content-parts.ts';

/**
 * A vendor's signed thinking carried to a Gemini client in `thoughtSignature` (CONTRACT 6.3), the
 * field Google's clients already keep and send back on the part that carried it. On the
 * cross-vendor lane the gateway writes there its own opaque token: `gwt1.` and the base64url of
 * the answer's thinking blocks (`[{vendor, text, signature | redacted}]`), so that an Anthropic
 * upstream's thinking reaches Anthropic again on the next turn. It is not encrypted, as the
 * Responses door's `encrypted_content` is not (decision 0020): nothing in it is secret to the
 * client, and the vendor checks its own signature. A signature the gateway did not write (Google's
 * own, a stand-in, a token that does not read) is left out of the request.
 */

const TOKEN_PREFIX = 'gwt1.';
const VENDORS: ReadonlySet<string> = new Set<ThinkingVendor>(['anthropic', 'gemini', 'openai']);
/** A token longer than this is no token of the gateway's (the largest thinking a turn carries). */
const MAX_TOKEN_CHARS = 4 * 1024 * 1024;

/** The thinking blocks of an answer as one token. */
export function encodeThoughtToken(parts: readonly ThinkingPart[]): string {
  const payload = parts.map((part) => {
    const item: Record<string, unknown> = { vendor: part.vendor, text: part.text };
    if (part.signature !== undefined) item['signature'] = part.signature;
    if (part.redacted !== undefined) item['redacted'] = part.redacted;
    return item;
  });
  return TOKEN_PREFIX + Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** The thinking a token of this gateway carries; undefined for any other value. */
export function decodeThoughtToken(token: unknown): ThinkingPart[] | undefined {
  if (typeof token !== 'string' || !token.startsWith(TOKEN_PREFIX) || token.length > MAX_TOKEN_CHARS)
    return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(token.slice(TOKEN_PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(payload)) return undefined;
  const parts: ThinkingPart[] = [];
  for (const item of payload) {
    if (typeof item !== 'object' || item === null) return undefined;
    const { vendor, text, signature, redacted } = item as Record<string, unknown>;
    if (typeof vendor !== 'string' || !VENDORS.has(vendor) || typeof text !== 'string') return undefined;
    const part: ThinkingPart = { type: 'thinking', vendor: vendor as ThinkingVendor, text };
    if (typeof signature === 'string' && signature !== '') part.signature = signature;
    if (typeof redacted === 'string' && redacted !== '') part.redacted = redacted;
    if (part.signature !== undefined || part.redacted !== undefined) parts.push(part);
  }
  return parts.length === 0 ? undefined : parts;
}
