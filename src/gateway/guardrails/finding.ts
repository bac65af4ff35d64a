/**
 * What a detector found in a text: where (UTF-16 offsets, `end` exclusive) and what kind of thing
 * it is, as the mask names it (`[REDACTED:<type>]`, CONTRACT 6.9). Never the matched value: the
 * caller holds the text, and nothing past the guard stage may keep what matched.
 */
export interface Finding {
  start: number;
  end: number;
  type: string;
}

/** A detector: a pure function that appends what it finds in `text` to `into`. */
export type Detector = (text: string, into: Finding[]) => void;

/** True for an ASCII letter or digit: the boundary test every detector uses. */
export function isAlphanumeric(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

export function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * Runs a global regular expression over `text` and appends each match as a finding of `type`;
 * `accept` may refuse a match (a checksum). Built-in patterns only: each starts with a literal
 * and has bounded repetition, so V8 runs them in linear time (secret-detectors.ts says why).
 */
export function collectMatches(
  pattern: RegExp,
  type: string,
  text: string,
  into: Finding[],
  accept?: (match: string) => boolean,
): void {
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (accept === undefined || accept(match[0]))
      into.push({ start: match.index, end: match.index + match[0].length, type });
  }
}
