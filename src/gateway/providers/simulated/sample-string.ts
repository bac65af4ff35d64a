import { FORMAT_SAMPLES, padFormatted } from './format-samples.ts';
import { EXTRA_PATTERNS } from './merge-schemas.ts';
import { generatorFor, matcherFor } from './pattern-cache.ts';

const WORDS = ['simulated', 'value', 'sample', 'gateway', 'answer', 'text', 'Ok', 'x7', 'Zeta', '42'];

/**
 * Tries per pattern: randexp draws strings from the pattern's own syntax, and each draw is
 * checked with the same RE2 engine the gateway validates with, against the length bounds too.
 */
const PATTERN_TRIES = 16;

/** Longest run randexp builds for `*` and `+`: keeps answers short and generation quick. */
const PATTERN_REPEAT = 8;

/**
 * A string meeting type, length, format and pattern keywords, built in time linear in its length.
 * Attempt 0 gives the usual answer; later attempts (the sampler retrying a candidate a `not`, a
 * `oneOf` or an `if` rejected) draw other words, lengths and format samples.
 */
export function sampleString(schema: Record<string, unknown>, pick: () => number, attempt = 0): string {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  const format = typeof schema.format === 'string' ? schema.format : undefined;
  const samples = format === undefined ? undefined : FORMAT_SAMPLES[format];
  const patterns = [schema.pattern, ...((schema[EXTRA_PATTERNS] as unknown[] | undefined) ?? [])].filter(
    (pattern): pattern is string => typeof pattern === 'string',
  );
  if (patterns.length > 0) {
    // A format beside a pattern: a format sample the patterns accept, else a draw from one of
    // the patterns (each attempt the next) that all of them accept.
    const matchers = patterns.map((pattern) => matcherFor(pattern));
    const matches = (text: string): boolean => fits(text, min, max) && matchers.every((m) => m.test(text));
    const formatted = format === undefined ? undefined : sampleFormat(format, min, max, attempt);
    if (formatted !== undefined && matches(formatted)) return formatted;
    const matching = (samples ?? []).find(matches);
    const primary = patterns[attempt % patterns.length] as string;
    return matching ?? sampleFromPattern(primary, min, max, pick, attempt, matches);
  }
  if (samples !== undefined && format !== undefined) return sampleFormat(format, min, max, attempt) as string;
  const word = WORDS[Math.floor(pick() * (attempt === 0 ? 6 : WORDS.length))] ?? 'simulated';
  const length = attempt === 0 ? 0 : min + Math.floor(pick() * 12);
  return fitLength(word, Math.max(min, Math.min(length, max)), max);
}

/**
 * A string of the format within the length bounds: the attempt-th stock sample that fits, and
 * past the stock, samples lengthened by a few more characters each attempt.
 */
function sampleFormat(format: string, min: number, max: number, attempt: number): string | undefined {
  const samples = FORMAT_SAMPLES[format];
  if (samples === undefined) return undefined;
  const fitting = samples.filter((sample) => fits(sample, min, max));
  if (fitting.length === 0) {
    // No stock sample fits the bounds: one built to the minimum length, where the format can be.
    const built = padFormatted(format, '', Math.max(1, min));
    return fits(built, min, max) ? built : samples[0];
  }
  const choices = fitting;
  const sample = choices[attempt % choices.length] as string;
  if (attempt < choices.length) return padFormatted(format, sample, min);
  const longer = padFormatted(
    format,
    sample,
    Math.max(min, [...sample].length + 4 * (attempt - choices.length + 1)),
  );
  return fits(longer, min, max) ? longer : padFormatted(format, sample, min);
}

function fits(text: string, min: number, max: number): boolean {
  const length = [...text].length;
  return length >= min && length <= max;
}

/** Repeats or trims plain text to the length bounds (counted in code points, as JSON Schema does). */
function fitLength(word: string, min: number, max: number): string {
  let text = word;
  if (text.length < min) text = `${word} ${'sample '.repeat(Math.ceil(min / 7))}`.slice(0, min);
  return text.length > max ? text.slice(0, max) : text;
}

function sampleFromPattern(
  pattern: string,
  min: number,
  max: number,
  pick: () => number,
  attempt: number,
  accepts: (text: string) => boolean,
): string {
  const matcher = matcherFor(pattern);
  const generator = generatorFor(pattern);
  let last = '';
  if (generator !== undefined) {
    // Runs long enough for minLength, and no longer than maxLength allows.
    generator.max = Math.min(max, Math.max(PATTERN_REPEAT, Math.min(min, 1000)));
    generator.randInt = (low: number, high: number) => low + Math.floor(pick() * (high - low + 1));
    for (let draw = 0; draw < PATTERN_TRIES; draw++) {
      last = generator.gen();
      // Past the first draw of the first attempt, text around the draw where the pattern allows.
      if (attempt + draw > 0 && (pick() < 0.5 || !accepts(last)))
        last = extend(last, matcher, pick, { min, max });
      if (accepts(last)) return last;
    }
  }
  // An unanchored pattern is satisfied by any string containing a match: pad a match to length.
  if (matcher.test(last) && [...last].length < min) {
    const padded = last + 'x'.repeat(min - [...last].length);
    if (accepts(padded)) return padded;
  }
  return last;
}

/**
 * On a retry, a draw with text added before or after it where the pattern still matches (an
 * unanchored side accepts anything), to a length within the bounds: a literal pattern otherwise
 * gives one string only.
 */
function extend(
  draw: string,
  matcher: { test(text: string): boolean },
  pick: () => number,
  bounds: { min: number; max: number },
): string {
  const length = [...draw].length;
  const low = Math.max(bounds.min, length + 1);
  const high = Math.min(bounds.max, low + 12);
  if (high < low) return draw;
  const target = low + Math.floor(pick() * (high - low + 1));
  const word = WORDS[Math.floor(pick() * WORDS.length)] ?? 'x';
  const filler = word.repeat(Math.ceil((target - length) / word.length)).slice(0, target - length);
  for (const candidate of pick() < 0.5 ? [draw + filler, filler + draw] : [filler + draw, draw + filler]) {
    if (matcher.test(candidate)) return candidate;
  }
  return draw;
}
