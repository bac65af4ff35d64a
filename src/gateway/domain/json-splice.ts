/**
 * Changing one field of a JSON object's text without writing the rest again: the same-vendor lane
 * of the Anthropic door (CONTRACT 5.2) sends the client's body upstream with only `model`
 * replaced, and relays the upstream's `message_delta` with only `usage.cost_usd` added. Parsing
 * and serialising again would keep the meaning but not the bytes (number forms, escapes, key
 * order of duplicates, whitespace), and the bytes are what a signature or a cache prefix sees.
 *
 * The text is trusted to be valid JSON (it was parsed before, by Fastify or the adapter); the
 * scan is linear and allocates only the result.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Where a top-level field's value lies in the text: `text.slice(start, end)` is the value. */
export interface ValueSpan {
  start: number;
  end: number;
}

/**
 * The span of the value of `key` in the top-level object of `text`, the last one when the key is
 * repeated (JSON.parse keeps the last); undefined when the text is not an object or lacks it.
 * Keys are compared decoded, so `"mod\u0065l"` is `model`.
 */
export function findTopLevelValue(text: string, key: string): ValueSpan | undefined {
  let at = skipSpace(text, 0);
  if (text[at] !== '{') return undefined;
  at = skipSpace(text, at + 1);
  let found: ValueSpan | undefined;
  while (at < text.length && text[at] !== '}') {
    const keyEnd = skipString(text, at);
    const name = text.slice(at, keyEnd);
    at = skipSpace(text, keyEnd);
    if (text[at] !== ':') return undefined;
    const start = skipSpace(text, at + 1);
    const end = skipValue(text, start);
    if (end <= start) return undefined;
    if (sameKey(name, key)) found = { start, end };
    at = skipSpace(text, end);
    if (text[at] === ',') at = skipSpace(text, at + 1);
  }
  return found;
}

/** `text` with the top-level field's value replaced by `valueJson`; undefined when it has no such field. */
export function replaceTopLevelValue(text: string, key: string, valueJson: string): string | undefined {
  const span = findTopLevelValue(text, key);
  if (span === undefined) return undefined;
  return text.slice(0, span.start) + valueJson + text.slice(span.end);
}

/**
 * `text` with `"name": valueJson` added as the last member of the object held by the top-level
 * field `key` (`usage` of a `message_delta`); undefined when that field is not an object.
 */
export function addToTopLevelObject(
  text: string,
  key: string,
  name: string,
  valueJson: string,
): string | undefined {
  const span = findTopLevelValue(text, key);
  if (span === undefined || text[span.start] !== '{') return undefined;
  const close = span.end - 1;
  const empty = skipSpace(text, span.start + 1) === close;
  const member = `${empty ? '' : ','}${JSON.stringify(name)}:${valueJson}`;
  return text.slice(0, close) + member + text.slice(close);
}

function sameKey(quoted: string, key: string): boolean {
  if (!quoted.includes('\\')) return quoted.length === key.length + 2 && quoted.slice(1, -1) === key;
  try {
    return JSON.parse(quoted) === key;
  } catch {
    return false;
  }
}

function skipSpace(text: string, at: number): number {
  let index = at;
  for (;;) {
    const char = text.charCodeAt(index);
    // space, tab, line feed, carriage return: JSON's only whitespace
    if (char !== 0x20 && char !== 0x09 && char !== 0x0a && char !== 0x0d) return index;
    index++;
  }
}

/**
 * The index after the string that starts at `at` (a `"`); `at` itself when none starts there.
 * Jumps from quote to quote (`indexOf` runs natively: a Claude Code body is a megabyte of string
 * content, which a character-by-character loop walked on the event loop), a quote preceded by an
 * odd number of backslashes being escaped.
 */
function skipString(text: string, at: number): number {
  if (text.charCodeAt(at) !== QUOTE) return at;
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return at;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** The index after the value that starts at `at`: a string, an object or array (nesting counted), or a literal. */
function skipValue(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return skipString(text, at);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    let index = at;
    while (index < text.length) {
      const char = text.charCodeAt(index);
      if (char === QUOTE) {
        const after = skipString(text, index);
        if (after === index) return at;
        index = after;
        continue;
      }
      if (char === OPEN_BRACE || char === OPEN_BRACKET) depth++;
      else if (char === CLOSE_BRACE || char === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return index + 1;
      }
      index++;
    }
    return at;
  }
  let index = at;
  while (index < text.length && !',}] \t\n\r'.includes(text[index] as string)) index++;
  return index;
}
