/** Digits of a JSON number from its first non-zero digit, the exponent left out ('0.00120' has 3). */
export function significantDigits(number: string): number {
  return number.replace(/e.*$/, '').replace(/[-.]/g, '').replace(/^0+/, '').length;
}
