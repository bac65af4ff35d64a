import { RE2JS } from 're2js';
import { MAX_PATTERN_LENGTH, MAX_PATTERN_PROGRAM } from '../../config/read-guardrail-settings.ts';
import { type Detector, isAlphanumeric } from './finding.ts';

/** The longest word a word list may hold (the file schema's bound). */
const MAX_WORD_LENGTH = 200;

/**
 * A custom pattern as a detector (CONTRACT 6.6: linear-time only). It runs on RE2 (re2js), whose
 * matching is linear in the text whatever the pattern; a pattern RE2 cannot run (lookaround,
 * backreferences) or one too large is refused, with the reason, by `compileCustomPattern`'s
 * caller at start-up. Matches are masked with the guard's name.
 */
export function compileCustomPattern(pattern: string, type: string, caseInsensitive: boolean): Detector {
  if (pattern.length > MAX_PATTERN_LENGTH)
    throw new Error(`pattern is ${pattern.length} characters; at most ${MAX_PATTERN_LENGTH}`);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(pattern), caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    throw new Error(
      `pattern is not linear-time (the guardrails run RE2: no lookaround, no backreferences): ${(error as Error).message}`,
    );
  }
  if (compiled.programSize() > MAX_PATTERN_PROGRAM)
    throw new Error(
      `pattern compiles to ${compiled.programSize()} instructions; at most ${MAX_PATTERN_PROGRAM}`,
    );
  if (compiled.matches('')) throw new Error('pattern matches the empty string');
  return (text, into) => {
    const matcher = compiled.matcher(text);
    let from = 0;
    while (from <= text.length && matcher.find(from)) {
      const start = matcher.start();
      const end = matcher.end();
      if (end > start) into.push({ start, end, type });
      from = end > start ? end : start + 1;
    }
  };
}

/**
 * A word list as a detector: each listed word or phrase, case-insensitive, as a whole word (not
 * `class` inside `classified`). Single words are looked up in a set as the text's words go by
 * (one pass); phrases with spaces are searched for with `indexOf` over the lower-cased text.
 */
export function compileWordList(words: readonly string[], type: string): Detector {
  const single = new Set<string>();
  const phrases: string[] = [];
  for (const word of words) {
    const lower = word.trim().toLowerCase();
    if (lower === '') continue;
    if (/^[a-z0-9]+$/.test(lower)) single.add(lower);
    else phrases.push(lower);
  }
  return (text, into) => {
    const lower = single.size > 0 || phrases.length > 0 ? text.toLowerCase() : text;
    if (single.size > 0) {
      let start = -1;
      for (let index = 0; index <= lower.length; index++) {
        const word = index < lower.length && isAlphanumeric(lower.charCodeAt(index));
        if (word && start === -1) start = index;
        else if (!word && start !== -1) {
          if (index - start <= MAX_WORD_LENGTH && single.has(lower.slice(start, index)))
            into.push({ start, end: index, type });
          start = -1;
        }
      }
    }
    for (const phrase of phrases) {
      for (let at = lower.indexOf(phrase); at !== -1; at = lower.indexOf(phrase, at + 1)) {
        const end = at + phrase.length;
        const before = at > 0 && isAlphanumeric(lower.charCodeAt(at - 1));
        const after = end < lower.length && isAlphanumeric(lower.charCodeAt(end));
        if (!before && !after) into.push({ start: at, end, type });
      }
    }
  };
}
