import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

/**
 * Callers' `pattern` and `patternProperties` run on RE2 (re2js, a pure-JS port): matching takes
 * time linear in the input whatever the pattern, where V8's backtracking engine can take
 * exponential time on a pattern as plain as `^([a-z ]|[a-z ])*X$`. RE2 has no lookaround and
 * no backreferences; a pattern using them is refused with a 400 rather than run on V8.
 * JSON Schema patterns are unanchored, so `test` searches the whole string, as ECMA-262 does.
 */
export function compileLinearPattern(pattern: string): RE2JS {
  return RE2JS.compile(RE2JS.translateRegExp(pattern));
}

/** Why RE2 cannot run this pattern, or undefined when it can. */
export function explainUnsupportedPattern(pattern: string): string | undefined {
  try {
    compileLinearPattern(pattern);
    return undefined;
  } catch (error) {
    return `pattern is not supported by the gateway's linear-time regular-expression engine (RE2: no lookaround, no backreferences, repetition counts up to 1000): ${(error as Error).message}`;
  }
}

/** Ajv's `code.regExp` option: every pattern Ajv compiles goes through RE2. */
export const linearRegExpEngine: RegExpEngine = Object.assign(
  (pattern: string, _flags: string) => compileLinearPattern(pattern),
  { code: 'compileLinearPattern' },
);
