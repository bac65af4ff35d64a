import { findTopLevelValue } from '../domain/json-splice.ts';
import type { MessagesRelayCall } from './messages-relay.ts';

/**
 * The Anthropic door's same-vendor lane on a cloud (CONTRACT 6.4, 6.9): the client's Messages body
 * goes as its bytes but for what the cloud's wire format moves. `model` goes to the URL (so it
 * leaves the body), the version goes into the body as `anthropic_version` (the cloud's own), and on
 * Bedrock `stream` leaves the body for the URL and the betas enter it as `anthropic_beta`. Betas the
 * cloud does not take are left out and named. Every other byte (cache_control, thinking signatures,
 * documents, tools) is the client's.
 */
export interface CloudMessagesRules {
  version: string;
  /** Bedrock: `stream` is the URL's (invoke-with-response-stream), not the body's. */
  streamInUrl: boolean;
  /** Bedrock: betas in the body as `anthropic_beta`; Vertex keeps the `anthropic-beta` header. */
  betasInBody: boolean;
  /** The betas the cloud takes; any other is left out. */
  supportedBetas: ReadonlySet<string>;
}

export interface CloudMessagesBody {
  body: Buffer;
  /** Whether the client asked for a stream. */
  stream: boolean;
  /** The betas that go (to the header on Vertex). */
  betas: string[];
  /** `anthropic-beta:<name>` for each beta left out. */
  ignored: string[];
}

export function toCloudMessagesBody(call: MessagesRelayCall, rules: CloudMessagesRules): CloudMessagesBody {
  let body = call.body;
  const streamSpan = findTopLevelValue(body, 'stream');
  const stream =
    streamSpan !== undefined && body.toString('utf8', streamSpan.start, streamSpan.end) === 'true';
  body = withoutTopLevel(body, 'model');
  if (rules.streamInUrl) body = withoutTopLevel(body, 'stream');
  const asked = (call.headers['anthropic-beta'] ?? '')
    .split(',')
    .map((beta) => beta.trim())
    .filter((beta) => beta !== '');
  const betas = asked.filter((beta) => rules.supportedBetas.has(beta));
  const ignored = asked
    .filter((beta) => !rules.supportedBetas.has(beta))
    .map((beta) => `anthropic-beta:${beta}`);
  const added: [string, string][] = [];
  if (findTopLevelValue(body, 'anthropic_version') === undefined)
    added.push(['anthropic_version', JSON.stringify(rules.version)]);
  if (rules.betasInBody && betas.length > 0 && findTopLevelValue(body, 'anthropic_beta') === undefined)
    added.push(['anthropic_beta', JSON.stringify(betas)]);
  return { body: withLeadingMembers(body, added), stream, betas, ignored };
}

/** The events, the first one naming what was left out (for the header written before any byte). */
export async function* withIgnoredFields<E extends { ignoredFields?: string[] }>(
  events: AsyncIterable<E>,
  ignored: readonly string[],
): AsyncIterable<E> {
  let first = ignored.length > 0;
  for await (const event of events) {
    if (first) {
      first = false;
      yield { ...event, ignoredFields: [...ignored] };
    } else yield event;
  }
}

/** The bytes with the top-level member `key` (and one comma beside it) cut out; unchanged without it. */
export function withoutTopLevel(bytes: Buffer, key: string): Buffer {
  const span = findTopLevelValue(bytes, key);
  if (span === undefined) return bytes;
  const keyStart = memberStart(bytes, span.start);
  let end = span.end;
  let at = skipSpace(bytes, end);
  if (bytes[at] === COMMA) end = skipSpace(bytes, at + 1);
  else {
    // The last member: the comma before it goes instead.
    at = keyStart - 1;
    while (at > 0 && isSpace(bytes[at])) at--;
    if (bytes[at] === COMMA) return Buffer.concat([bytes.subarray(0, at), bytes.subarray(span.end)]);
  }
  return Buffer.concat([bytes.subarray(0, keyStart), bytes.subarray(end)]);
}

/** The bytes with `members` put first in the top-level object. */
export function withLeadingMembers(bytes: Buffer, members: readonly [string, string][]): Buffer {
  if (members.length === 0) return bytes;
  const open = skipSpace(bytes, 0);
  const empty = bytes[skipSpace(bytes, open + 1)] === CLOSE_BRACE;
  const written = members.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',');
  return Buffer.concat([
    bytes.subarray(0, open + 1),
    Buffer.from(empty ? written : `${written},`),
    bytes.subarray(open + 1),
  ]);
}

const COMMA = 0x2c;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

function skipSpace(bytes: Buffer, from: number): number {
  let at = from;
  while (isSpace(bytes[at])) at++;
  return at;
}

/** Where the member whose value starts at `valueStart` begins: its key's opening quote. */
function memberStart(bytes: Buffer, valueStart: number): number {
  let at = valueStart - 1;
  while (isSpace(bytes[at]) || bytes[at] === 0x3a) at--;
  // `at` is the key's closing quote; walk back to the opening one that no odd run of backslashes escapes.
  for (at--; at >= 0; at--) {
    if (bytes[at] !== QUOTE) continue;
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return 0;
}
