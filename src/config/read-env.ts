import { ConfigError } from './config-error.ts';

export type Env = Record<string, string | undefined>;

/** Reads typed values out of the environment, naming the variable in every error. */
export class EnvReader {
  readonly #env: Env;

  constructor(env: Env) {
    this.#env = env;
  }

  string(name: string): string | undefined {
    const value = this.#env[name];
    if (value === undefined) return undefined;
    const trimmed = value.trim();
    return trimmed === '' ? undefined : trimmed;
  }

  integer(name: string, min: number, max: number): number | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    if (!/^-?\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number (got '${raw}')`);
    const value = Number(raw);
    if (value < min || value > max)
      throw new ConfigError(name, `must be between ${min} and ${max} (got ${value})`);
    return value;
  }

  oneOf<const T extends readonly string[]>(name: string, allowed: T): T[number] | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    const value = raw.toLowerCase();
    if (!allowed.includes(value))
      throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got '${raw}')`);
    return value as T[number];
  }
}
