/**
 * Digits of a JSON number from its first to its last non-zero digit, the exponent left out
 * ('0.00120' has 2, '1000000000' has 1): the precision the text carries.
 */
export function significantDigits(number: string): number {
  return number.replace(/e.*$/, '').replace(/[-.]/g, '').replace(/^0+/, '').replace(/0+$/, '').length;
}
