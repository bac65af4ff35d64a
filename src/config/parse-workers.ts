import { ConfigError } from './config-error.ts';

/** Most worker processes one instance starts; past this a typo (an extra zero) is more likely than a machine. */
export const MAX_WORKERS = 1024;

/**
 * GATEWAY_WORKERS (CONTRACT 6.8): `auto` (one per CPU) or a whole number from 1; zero, a negative
 * or a fraction stops start-up naming the variable.
 */
export function parseWorkers(raw: string, name: string): 'auto' | number {
  if (raw.toLowerCase() === 'auto') return 'auto';
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_WORKERS) {
    throw new ConfigError(name, `must be auto or a whole number from 1 to ${MAX_WORKERS} (got '${raw}')`);
  }
  return Number(raw);
}
