import { passesIbanCheck } from './checksums.ts';
import { classifyNumber, type DigitRun } from './classify-number.ts';
import { type Detector, type Finding, isAlphanumeric, isDigit } from './finding.ts';
import { IBAN_LENGTHS } from './iban-lengths.ts';

/*
 * The built-in personal-data detectors (CONTRACT 6.6). None is a regular expression over the
 * whole text: e-mail addresses grow out from each `@`, numbers are read once as runs of digits
 * and separators and then classified (classify-number.ts), IBANs grow from a country code
 * followed by two digits. Each step reads a bounded stretch, so the work is linear in the text.
 */

const LOCAL_PART_MAX = 64;
const DOMAIN_MAX = 253;

function isLocalPartCode(code: number): boolean {
  // letters, digits and . _ % + -
  return isAlphanumeric(code) || code === 46 || code === 95 || code === 37 || code === 43 || code === 45;
}

function isDomainCode(code: number): boolean {
  return isAlphanumeric(code) || code === 46 || code === 45;
}

/** An e-mail address: a local part, `@`, a domain with a dot and a top-level label of letters. */
export const detectEmail: Detector = (text, into) => {
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > 0 && at - start < LOCAL_PART_MAX && isLocalPartCode(text.charCodeAt(start - 1))) start--;
    while (start < at && text.charCodeAt(start) === 46) start++;
    if (start === at) continue;
    let end = at + 1;
    while (end < text.length && end - at <= DOMAIN_MAX && isDomainCode(text.charCodeAt(end))) end++;
    // A sentence's full stop or a trailing hyphen is not part of the domain.
    while (end > at + 1 && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 45)) end--;
    let dot = end - 1;
    while (dot > at && text.charCodeAt(dot) !== 46) dot--;
    if (dot <= at + 1 || end - dot < 3 || text.charCodeAt(at + 1) === 46) continue;
    if (!isLetters(text, dot + 1, end)) continue;
    into.push({ start, end, type: 'EMAIL' });
    at = end - 1;
  }
};

function isLetters(text: string, from: number, to: number): boolean {
  for (let index = from; index < to; index++) {
    const code = text.charCodeAt(index) | 32;
    if (code < 97 || code > 122) return false;
  }
  return true;
}

/** The longest stretch read as one number (an international phone number with its separators). */
const MAX_NUMBER_SPAN = 40;

/**
 * Phone numbers, payment cards and US SSNs: each number-like stretch (digits, and between them
 * at most two of space, `-`, `.`, `(`, `)`), starting and ending at a word boundary, is read once
 * into its runs of digits and classified (classify-number.ts), whole or, when the whole is none
 * of them, each of its stretches of runs (a phone number after an order number).
 */
export const detectNumbers: Detector = (text, into) => {
  const length = text.length;
  let index = 0;
  while (index < length) {
    // Most characters are neither a digit nor `+` or `(`: the regular expression engine's scan
    // for a character class passes them several times faster than a loop over char codes.
    NUMBER_START.lastIndex = index;
    const next = NUMBER_START.exec(text);
    if (next === null) return;
    index = next.index;
    if (index > 0 && isAlphanumeric(text.charCodeAt(index - 1))) {
      index = Math.max(skipWord(text, index), index + 1);
      continue;
    }
    const span = readNumberSpan(text, index);
    if (span.runs.length > 0) classifySpan(text, span.runs, span.plus, into);
    index = Math.max(span.end, index + 1);
  }
};

/** Where a number-like stretch may start: a digit, `+` or `(`. */
const NUMBER_START = /[0-9+(]/g;

interface NumberSpan {
  runs: DigitRun[];
  plus: boolean;
  end: number;
}

const NO_RUNS: DigitRun[] = [];

/**
 * Reads the number-like stretch at `from`; a stretch with fewer digits than any number the
 * detectors know (a version, a time, a small count) comes back without runs, nothing allocated.
 */
function readNumberSpan(text: string, from: number): NumberSpan {
  const plus = text.charCodeAt(from) === 43;
  let position = plus ? from + 1 : from;
  let digits = 0;
  let lastEnd = -1;
  const starts: number[] = [];
  for (;;) {
    if (text.charCodeAt(position) === 40) position++;
    const start = position;
    while (isDigit(text.charCodeAt(position)) && position - from < MAX_NUMBER_SPAN) position++;
    if (position === start) break;
    digits += position - start;
    starts.push(start, position);
    lastEnd = position;
    const closed = text.charCodeAt(position) === 41;
    if (closed) position++;
    let next = position;
    while (next - position < 2 && isSeparator(text.charCodeAt(next))) next++;
    const follows = isDigit(text.charCodeAt(next)) || (text.charCodeAt(next) === 40 && next > position);
    if (!follows || (next === position && !closed) || next - from >= MAX_NUMBER_SPAN) break;
    position = next;
  }
  if (lastEnd === -1) return { runs: NO_RUNS, plus, end: from + 1 };
  // A number glued to letters or more digits (`123abc`, a run cut at the span's bound) is no number.
  if (isAlphanumeric(text.charCodeAt(lastEnd))) return { runs: NO_RUNS, plus, end: skipWord(text, lastEnd) };
  if (digits < MIN_DIGITS) return { runs: NO_RUNS, plus, end: lastEnd };
  const runs: DigitRun[] = [];
  for (let index = 0; index < starts.length; index += 2)
    runs.push({ start: starts[index] as number, end: starts[index + 1] as number });
  return { runs, plus, end: lastEnd };
}

/** The fewest digits of any number the detectors know (a `+` phone number). */
const MIN_DIGITS = 8;

function isSeparator(code: number): boolean {
  return code === 32 || code === 45 || code === 46;
}

function skipWord(text: string, from: number): number {
  let index = from;
  while (index < text.length && isAlphanumeric(text.charCodeAt(index))) index++;
  return index;
}

/** The most runs of digits one number is written in (`+33 1 23 45 67 89`). */
const MAX_RUNS = 6;

/** The whole span first, then shorter stretches of its runs, the longest first at each start. */
function classifySpan(text: string, runs: readonly DigitRun[], plus: boolean, into: Finding[]): void {
  let first = 0;
  while (first < runs.length) {
    let found = false;
    for (let last = Math.min(runs.length, first + MAX_RUNS) - 1; last >= first; last--) {
      const type = classifyNumber(text, runs, first, last, plus && first === 0);
      if (type === undefined) continue;
      const start = plus && first === 0 ? (runs[0] as DigitRun).start - 1 : (runs[first] as DigitRun).start;
      into.push({ start: openingParenthesis(text, start), end: (runs[last] as DigitRun).end, type });
      first = last + 1;
      found = true;
      break;
    }
    if (!found) first++;
  }
}

function openingParenthesis(text: string, start: number): number {
  return start > 0 && text.charCodeAt(start - 1) === 40 ? start - 1 : start;
}

/**
 * An IBAN: a country code with a registered length, two check digits, then the country's number
 * of letters and digits (single spaces between groups allowed), passing mod 97.
 */
export const detectIban: Detector = (text, into) => {
  // One pattern for every call (detectors are synchronous), not one compiled per text.
  const candidates = IBAN_START;
  candidates.lastIndex = 0;
  for (let match = candidates.exec(text); match !== null; match = candidates.exec(text)) {
    const index = match.index;
    const length = IBAN_LENGTHS.get(text.slice(index, index + 2));
    if ((index > 0 && isAlphanumeric(text.charCodeAt(index - 1))) || length === undefined) {
      candidates.lastIndex = index + 1;
      continue;
    }
    const end = readIban(text, index, length);
    candidates.lastIndex = end === undefined ? index + 1 : end.end;
    if (end !== undefined) into.push({ start: index, end: end.end, type: 'IBAN' });
  }
};

const IBAN_START = /[A-Z]{2}[0-9]{2}/g;

function readIban(text: string, from: number, length: number): { end: number } | undefined {
  let compact = '';
  let position = from;
  while (compact.length < length && position < text.length) {
    const code = text.charCodeAt(position);
    if (isDigit(code) || (code >= 65 && code <= 90)) compact += text[position];
    // A single space between groups of four.
    else if (code !== 32 || compact.length % 4 !== 0 || text.charCodeAt(position - 1) === 32) break;
    position++;
  }
  if (compact.length !== length || isAlphanumeric(text.charCodeAt(position))) return undefined;
  return passesIbanCheck(compact) ? { end: position } : undefined;
}
