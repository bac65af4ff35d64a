import { passesLuhn } from './checksums.ts';

/** A run of digits inside a number-like stretch of text. */
export interface DigitRun {
  start: number;
  end: number;
}

const MIN_DIGITS = 8;
const MAX_DIGITS = 19;

/**
 * What the runs `first..last` of a number-like stretch are: a US SSN, a payment card, a phone
 * number, or nothing. The order matters: an SSN's and a card's forms are exact, a phone's is what
 * is left that has a `+` or a phone's separator pattern (CONTRACT 6.9), so card numbers, IBANs'
 * digit groups, dates, ZIP codes and plain numbers are not phones.
 */
export function classifyNumber(
  text: string,
  runs: readonly DigitRun[],
  first: number,
  last: number,
  plus: boolean,
): 'US_SSN' | 'CARD' | 'PHONE' | undefined {
  let count = 0;
  for (let index = first; index <= last; index++)
    count += (runs[index] as DigitRun).end - (runs[index] as DigitRun).start;
  // Shorter than the shortest phone number, or longer than the longest card: nothing to read.
  if (count < MIN_DIGITS || count > MAX_DIGITS) return undefined;
  // Most stretches (dates, times, order numbers) can be none of the three by their count of runs
  // and digits and their first digit alone: answered before any string or array is made.
  const runCount = last - first + 1;
  const lead = text.charCodeAt((runs[first] as DigitRun).start);
  const maybeSsn = !plus && runCount === 3 && count === 9;
  const maybeCard = !plus && count >= 13 && lead >= 50 && lead <= 54;
  const maybePhone = plus
    ? count <= 15 && lead !== 48
    : runCount >= 2 &&
      ((runCount === 3 && count === 10) || (runCount === 4 && count === 11) || (lead === 48 && count <= 11));
  if (!maybeSsn && !maybeCard && !maybePhone) return undefined;
  const sizes: number[] = [];
  const separators: string[] = [];
  let digits = '';
  for (let index = first; index <= last; index++) {
    const run = runs[index] as DigitRun;
    sizes.push(run.end - run.start);
    digits += text.slice(run.start, run.end);
    if (index < last) separators.push(text.slice(run.end, (runs[index + 1] as DigitRun).start));
  }
  if (!plus && isSsn(digits, sizes, separators)) return 'US_SSN';
  if (!plus && isCard(digits, sizes, separators)) return 'CARD';
  if (isPhone(digits, sizes, separators, plus)) return 'PHONE';
  return undefined;
}

/** `AAA-GG-SSSS` (or with spaces), area not 000, 666 or 9xx, group not 00, serial not 0000. */
function isSsn(digits: string, sizes: readonly number[], separators: readonly string[]): boolean {
  if (sizes.length !== 3 || sizes[0] !== 3 || sizes[1] !== 2 || sizes[2] !== 4) return false;
  if (separators[0] !== separators[1] || (separators[0] !== '-' && separators[0] !== ' ')) return false;
  const area = digits.slice(0, 3);
  return (
    area !== '000' &&
    area !== '666' &&
    area[0] !== '9' &&
    digits.slice(3, 5) !== '00' &&
    digits.slice(5) !== '0000'
  );
}

/**
 * 13 to 19 digits starting 2 to 6 (the card networks' ranges), written whole or in groups of
 * four (Amex: 4-6-5) with one kind of separator, passing Luhn.
 */
function isCard(digits: string, sizes: readonly number[], separators: readonly string[]): boolean {
  if (digits.length < 13 || digits.length > 19) return false;
  const lead = digits.charCodeAt(0);
  if (lead < 50 || lead > 54) return false;
  if (sizes.length > 1) {
    const separator = separators[0];
    if ((separator !== ' ' && separator !== '-') || separators.some((other) => other !== separator))
      return false;
    const amex = sizes.length === 3 && sizes[0] === 4 && sizes[1] === 6 && sizes[2] === 5;
    const fours = sizes.every((size, index) => size === 4 || (index === sizes.length - 1 && size < 4));
    if (!amex && !fours) return false;
  }
  return passesLuhn(digits);
}

/**
 * A phone number: `+` and 8 to 15 digits (E.164) in any grouping; or, without `+`, the North
 * American form (`(555) 123-4567`, `555-123-4567`, `555.123.4567`, `1-555-123-4567`), or a
 * national form with a leading 0 (`020 7946 0958`, `01 23 45 67 89`): 10 or 11 digits in groups
 * of at least two. Always separated: a bare run of digits is never a phone.
 */
function isPhone(
  digits: string,
  sizes: readonly number[],
  separators: readonly string[],
  plus: boolean,
): boolean {
  if (plus) return digits.length >= 8 && digits.length <= 15 && digits[0] !== '0';
  if (sizes.length < 2 || !separators.every(isPhoneSeparator)) return false;
  if (sizes.length === 3 && sizes[0] === 3 && sizes[1] === 3 && sizes[2] === 4) return true;
  if (sizes.length === 4 && sizes[0] === 1 && sizes[1] === 3 && sizes[2] === 3 && sizes[3] === 4)
    return digits[0] === '1';
  return digits[0] === '0' && digits.length >= 10 && digits.length <= 11 && sizes.every((size) => size >= 2);
}

/** One or two of space, `-`, `.`, `(`, `)` between groups (`) `, ` (`). */
function isPhoneSeparator(separator: string): boolean {
  if (separator.length === 0 || separator.length > 2) return false;
  for (let index = 0; index < separator.length; index++) {
    const code = separator.charCodeAt(index);
    // space . ( ) -
    if (code !== 32 && code !== 46 && code !== 40 && code !== 41 && code !== 45) return false;
  }
  return true;
}
