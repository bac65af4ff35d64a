import type { ThinkingPart, ThinkingVendor } from '../../domain/content-parts.ts';
import type { OutputItem } from './to-response-output.ts';

/**
 * The answer's thinking as Responses `reasoning` items, and back (CONTRACT 5.4): a stateless
 * client (Codex: `store: false`, `include: ["reasoning.encrypted_content"]`) sends the items of
 * one turn back with the next, so the vendor's signed thinking must travel inside the item.
 *
 * `encrypted_content` is this gateway's opaque token, not encryption: `gwr1.` and the base64url of
 * `{v, vendor, text, signature?, redacted?}`. The gateway holds no secret of its own to encrypt
 * with (app secrets are hashed with random salts, decision 0013), and nothing in it is secret to
 * the client: the text is the summary the client already reads, the signature and the redacted
 * data are the vendor's own opaque values, which Anthropic hands to every client of its API. A
 * token the client changed only harms its own conversation: Anthropic checks its signature and
 * refuses a forged one. The prefix tells a token of this gateway from OpenAI's (`gAAAA…`), which
 * only OpenAI can read: that one, and any token that does not read, is left out of the input.
 */

const TOKEN_PREFIX = 'gwr1.';
const VENDORS: ReadonlySet<string> = new Set<ThinkingVendor>(['anthropic', 'gemini', 'openai']);

/** The thinking as an opaque token the client sends back. */
export function encodeReasoning(part: ThinkingPart): string {
  const payload: Record<string, unknown> = { v: 1, vendor: part.vendor, text: part.text };
  if (part.signature !== undefined) payload['signature'] = part.signature;
  if (part.redacted !== undefined) payload['redacted'] = part.redacted;
  return TOKEN_PREFIX + Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** The thinking a token of this gateway carries; undefined for anyone else's token, or one that does not read. */
export function decodeReasoning(token: unknown): ThinkingPart | undefined {
  if (typeof token !== 'string' || !token.startsWith(TOKEN_PREFIX)) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(token.slice(TOKEN_PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof payload !== 'object' || payload === null) return undefined;
  const { v, vendor, text, signature, redacted } = payload as Record<string, unknown>;
  if (v !== 1 || typeof vendor !== 'string' || !VENDORS.has(vendor) || typeof text !== 'string')
    return undefined;
  const part: ThinkingPart = { type: 'thinking', vendor: vendor as ThinkingVendor, text };
  if (typeof signature === 'string' && signature !== '') part.signature = signature;
  if (typeof redacted === 'string' && redacted !== '') part.redacted = redacted;
  // A part the vendor could not take back (neither signed nor redacted) is not worth carrying.
  return part.signature === undefined && part.redacted === undefined ? undefined : part;
}

/**
 * A reasoning output item: the thinking's text as its one `summary_text` (Anthropic's thinking of
 * its current models is already a summary; a redacted block has none, so an empty summary), and
 * the token in `encrypted_content` where the client asked for it or the response is stored.
 */
export function reasoningItem(id: string, part: ThinkingPart, withToken: boolean): OutputItem {
  const item: OutputItem = { type: 'reasoning', id, summary: reasoningSummary(part) };
  if (withToken) item['encrypted_content'] = encodeReasoning(part);
  return item;
}

export function reasoningSummary(part: ThinkingPart): { type: 'summary_text'; text: string }[] {
  return part.text === '' ? [] : [{ type: 'summary_text', text: part.text }];
}
