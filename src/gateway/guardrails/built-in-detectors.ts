import type { Detector, Finding } from './finding.ts';
import { detectEmail, detectIban, detectNumbers } from './personal-data-detectors.ts';
import { SECRET_DETECTORS } from './secret-detectors.ts';

/** The type names of the built-in detectors (CONTRACT 6.9), by guard type. */
export const SECRET_TYPES = Object.keys(SECRET_DETECTORS);
export const PERSONAL_DATA_TYPES = ['EMAIL', 'PHONE', 'CARD', 'IBAN', 'US_SSN'];

/** The detector that finds each personal-data type: phones, cards and SSNs are one reading of numbers. */
const PERSONAL_DATA_DETECTORS: Readonly<Record<string, Detector>> = {
  EMAIL: detectEmail,
  PHONE: detectNumbers,
  CARD: detectNumbers,
  US_SSN: detectNumbers,
  IBAN: detectIban,
};

/**
 * One detector for a set of built-in types: each underlying detector runs once (the number
 * reader once for phones, cards and SSNs together), and only the types asked for are kept.
 */
export function builtInDetector(types: readonly string[]): Detector {
  const wanted = new Set(types);
  const detectors = new Set<Detector>();
  for (const type of types) {
    const detector = SECRET_DETECTORS[type] ?? PERSONAL_DATA_DETECTORS[type];
    if (detector === undefined) throw new Error(`unknown detector '${type}'`);
    detectors.add(detector);
  }
  const all = [...detectors];
  const filter = wanted.has('PHONE') && wanted.has('CARD') && wanted.has('US_SSN') ? undefined : wanted;
  return (text, into) => {
    if (filter === undefined) {
      for (const detector of all) detector(text, into);
      return;
    }
    const found: Finding[] = [];
    for (const detector of all) detector(text, found);
    for (const finding of found) if (filter.has(finding.type)) into.push(finding);
  };
}
