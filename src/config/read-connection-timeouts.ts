import { ConfigError } from './config-error.ts';
import type { ConfigFile } from './config-file-schema.ts';
import { withDefaults } from './read-defaults.ts';
import { type ConnectionTimeouts, ConnectionTimeoutsSchema } from './settings-schema.ts';

/**
 * HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS (or `connections.*` in the file):
 * how long a client may take for its headers, for its whole request, and idle between requests.
 * Node refuses a headers timeout longer than the request timeout, so that is a start-up error.
 */
export function readConnectionTimeouts(given: ConfigFile['connections']): ConnectionTimeouts {
  const timeouts = withDefaults(ConnectionTimeoutsSchema, given);
  const { headersTimeoutMs: headers, requestTimeoutMs: request } = timeouts;
  if (request > 0 && headers > request) {
    throw new ConfigError(
      'HEADERS_TIMEOUT_MS',
      `must not exceed REQUEST_TIMEOUT_MS (${headers} > ${request})`,
    );
  }
  return timeouts;
}
