import randexp from 'randexp';
import { compileLinearPattern } from '../../json/linear-regexp.ts';
import { FORMAT_SAMPLES, padFormatted } from './format-samples.ts';

/** randexp is CommonJS whose typings say `export default`: under Node's ESM the class is the module itself. */
interface PatternGenerator {
  max: number;
  randInt(low: number, high: number): number;
  gen(): string;
}
const RandExp = randexp as unknown as new (pattern: string) => PatternGenerator;

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
  if (typeof schema.pattern === 'string') {
    // A format beside a pattern: a format sample the pattern accepts, else a draw from the pattern.
    const matcher = compileLinearPattern(schema.pattern);
    const matching = (samples ?? []).find((sample) => fits(sample, min, max) && matcher.test(sample));
    return matching ?? sampleFromPattern(schema.pattern, min, max, pick);
  }
  if (samples !== undefined && format !== undefined) {
    const fitting = samples.filter((sample) => fits(sample, min, max));
    const choices = fitting.length > 0 ? fitting : samples;
    return padFormatted(format, choices[attempt % choices.length] as string, min);
  }
  const word = WORDS[Math.floor(pick() * (attempt === 0 ? 6 : WORDS.length))] ?? 'simulated';
  const length = attempt === 0 ? 0 : min + Math.floor(pick() * 12);
  return fitLength(word, Math.max(min, Math.min(length, max)), max);
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

function sampleFromPattern(pattern: string, min: number, max: number, pick: () => number): string {
  const matcher = compileLinearPattern(pattern);
  let generator: PatternGenerator | undefined;
  try {
    generator = new RandExp(pattern);
  } catch {
    generator = undefined;
  }
  let last = '';
  if (generator !== undefined) {
    generator.max = Math.max(PATTERN_REPEAT, Math.min(min, 1000));
    generator.randInt = (low: number, high: number) => low + Math.floor(pick() * (high - low + 1));
    for (let attempt = 0; attempt < PATTERN_TRIES; attempt++) {
      last = generator.gen();
      const length = [...last].length;
      if (length >= min && length <= max && matcher.test(last)) return last;
    }
  }
  // An unanchored pattern is satisfied by any string containing a match: pad a match to length.
  if (matcher.test(last) && [...last].length < min) {
    const padded = last + 'x'.repeat(min - [...last].length);
    if ([...padded].length <= max && matcher.test(padded)) return padded;
  }
  return last;
}
