import assert from 'node:assert/strict';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadConfig } from '../../src/config/load-config.ts';

/** The ConfigError that loading `env` (and command-line `argv`) raises; the test fails when loading succeeds or throws anything else. */
export function configFailure(env: Record<string, string>, argv: string[] = []): ConfigError {
  try {
    loadConfig(env, argv);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error;
  }
  assert.fail('expected a ConfigError');
}
