import { ConfigError } from './config-error.ts';

export type Env = Record<string, string | undefined>;

/** Turns a variable's text into a setting's value; errors name the variable, never a secret's value. */
export type Parser<T> = (raw: string, name: string) => T;

/** A variable's text, trimmed; an empty variable counts as unset. */
export function readRaw(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

export const text: Parser<string> = (raw) => raw;

export function integer(min: number, max: number): Parser<number> {
  return (raw, name) => {
    if (!/^-?\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number (got '${raw}')`);
    const value = Number(raw);
    if (value < min || value > max)
      throw new ConfigError(name, `must be between ${min} and ${max} (got ${value})`);
    return value;
  };
}

/** One of a fixed set, case-insensitive. */
export function oneOf<const T extends readonly string[]>(allowed: T): Parser<T[number]> {
  return (raw, name) => {
    const value = raw.toLowerCase();
    if (!allowed.includes(value))
      throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got '${raw}')`);
    return value as T[number];
  };
}

/** Comma-separated entries, blanks dropped. */
export const commaList: Parser<string[]> = (raw) =>
  raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);

/** `true`/`false` (also `1`/`0`, `yes`/`no`), case-insensitive. */
export const boolean: Parser<boolean> = (raw, name) => {
  const value = raw.toLowerCase();
  if (['true', '1', 'yes'].includes(value)) return true;
  if (['false', '0', 'no'].includes(value)) return false;
  throw new ConfigError(name, `must be true or false (got '${raw}')`);
};

export function decimal(min: number, max: number): Parser<number> {
  return (raw, name) => {
    const value = Number(raw);
    if (!/^\d*\.?\d+$/.test(raw) || value < min || value > max)
      throw new ConfigError(name, `must be a number between ${min} and ${max} (got '${raw}')`);
    return value;
  };
}
