/** The Luhn check (ISO/IEC 7812) over a string of digits: what every payment card number passes. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let index = digits.length - 1; index >= 0; index--) {
    let digit = digits.charCodeAt(index) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

/**
 * The IBAN check (ISO 13616, ISO 7064 mod 97-10) over an IBAN without spaces, upper-case: the
 * first four characters moved to the end, letters as 10..35, the number modulo 97 must be 1.
 * Computed piecewise, digit by digit, so no big number is built.
 */
export function passesIbanCheck(iban: string): boolean {
  let remainder = 0;
  for (let step = 0; step < iban.length; step++) {
    const code = iban.charCodeAt((step + 4) % iban.length);
    if (code >= 48 && code <= 57) remainder = (remainder * 10 + (code - 48)) % 97;
    else if (code >= 65 && code <= 90) remainder = (remainder * 100 + (code - 55)) % 97;
    else return false;
  }
  return remainder === 1;
}
