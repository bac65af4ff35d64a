import randexp from 'randexp';
import type { RE2JS } from 're2js';
import { compileLinearPattern } from '../../json/linear-regexp.ts';

/**
 * Compiled patterns, kept because an answer draws and tests the same few patterns thousands of
 * times (a property name pattern for each of 1,000 objects): compiling each time cost more than
 * everything else together. Cleared when full, so memory stays bounded whatever callers send.
 */
const MAX_PATTERNS = 256;
const matchers = new Map<string, RE2JS>();

/** The RE2 matcher of a pattern (which the gateway has already found valid). */
export function matcherFor(pattern: string): RE2JS {
  let matcher = matchers.get(pattern);
  if (matcher === undefined) {
    if (matchers.size >= MAX_PATTERNS) matchers.clear();
    matcher = compileLinearPattern(pattern);
    matchers.set(pattern, matcher);
  }
  return matcher;
}

/** randexp is CommonJS whose typings say `export default`: under Node's ESM the class is the module itself. */
export interface PatternGenerator {
  max: number;
  randInt(low: number, high: number): number;
  gen(): string;
}
const RandExp = randexp as unknown as new (pattern: string) => PatternGenerator;
const generators = new Map<string, PatternGenerator | null>();

/**
 * A randexp generator of the pattern, or undefined when randexp cannot parse it. Callers set its
 * `max` and `randInt` before each use, so sharing one between answers shares no state.
 */
export function generatorFor(pattern: string): PatternGenerator | undefined {
  let generator = generators.get(pattern);
  if (generator === undefined) {
    if (generators.size >= MAX_PATTERNS) generators.clear();
    try {
      generator = new RandExp(pattern);
    } catch {
      generator = null;
    }
    generators.set(pattern, generator);
  }
  return generator ?? undefined;
}
