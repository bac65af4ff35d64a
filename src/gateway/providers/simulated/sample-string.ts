import randexp from 'randexp';

/** randexp is CommonJS whose typings say `export default`: under Node's ESM the class is the module itself. */
interface PatternGenerator {
  max: number;
  randInt(low: number, high: number): number;
  gen(): string;
}
const RandExp = randexp as unknown as new (pattern: string) => PatternGenerator;

import { compileLinearPattern } from '../../json/linear-regexp.ts';

const FORMAT_SAMPLES: Record<string, string> = {
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '12:00:00Z',
  duration: 'P1D',
  uri: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  'uri-template': 'https://example.com/',
  iri: 'https://example.com/',
  'iri-reference': 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  'json-pointer': '/a',
  'relative-json-pointer': '0',
  regex: '^a$',
  byte: 'c2ltdWxhdGVk',
  password: 'simulated',
};

const WORDS = ['simulated', 'value', 'sample', 'gateway', 'answer', 'text'];

/**
 * Tries per pattern: randexp draws strings from the pattern's own syntax, and each draw is
 * checked with the same RE2 engine the gateway validates with, against the length bounds too.
 */
const PATTERN_TRIES = 16;

/** Longest run randexp builds for `*` and `+`: keeps answers short and generation quick. */
const PATTERN_REPEAT = 8;

/** A string meeting type, length, format and pattern keywords, built in time linear in its length. */
export function sampleString(schema: Record<string, unknown>, pick: () => number): string {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  const format = typeof schema.format === 'string' ? schema.format : undefined;
  if (typeof schema.pattern === 'string') return sampleFromPattern(schema.pattern, min, max, pick);
  const formatted = format === undefined ? undefined : FORMAT_SAMPLES[format];
  if (formatted !== undefined && format !== undefined) return padFormatted(format, formatted, min);
  const word = WORDS[Math.floor(pick() * WORDS.length)] ?? 'simulated';
  return fitLength(word, min, max);
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

/** Lengthens a format sample to minLength where the format has room for it. */
function padFormatted(format: string, sample: string, minLength: number): string {
  const missing = minLength - sample.length;
  if (missing <= 0) return sample;
  if (format === 'email' || format === 'idn-email') return `user${'x'.repeat(missing)}@example.com`;
  if (format.startsWith('ur') || format.startsWith('iri')) return `${sample}${'x'.repeat(missing)}`;
  if (format === 'date-time') return `2026-01-01T00:00:00.${'0'.repeat(Math.max(1, missing - 1))}Z`;
  return sample;
}
