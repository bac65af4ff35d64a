import { ConfigError } from './config-error.ts';
import type { ConfigFile } from './config-file-schema.ts';
import type { ConnectionTimeouts } from './config-types.ts';
import { DEFAULTS } from './defaults.ts';
import type { EnvReader } from './read-env.ts';

const MAX_MS = 3_600_000;

/**
 * HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS (or `connections.*` in the file):
 * how long a client may take for its headers, for its whole request, and idle between requests.
 * Node refuses a headers timeout longer than the request timeout, so that is a start-up error.
 * A keep-alive timeout of 0 would mean Fastify's default, so its least value is 1.
 */
export function readConnectionTimeouts(
  read: EnvReader,
  file: NonNullable<ConfigFile['connections']>,
): ConnectionTimeouts {
  const defaults = DEFAULTS.connections;
  const timeouts: ConnectionTimeouts = {
    headersTimeoutMs:
      read.integer('HEADERS_TIMEOUT_MS', 0, MAX_MS) ?? file.headersTimeoutMs ?? defaults.headersTimeoutMs,
    requestTimeoutMs:
      read.integer('REQUEST_TIMEOUT_MS', 0, MAX_MS) ?? file.requestTimeoutMs ?? defaults.requestTimeoutMs,
    keepAliveTimeoutMs:
      read.integer('KEEP_ALIVE_TIMEOUT_MS', 1, MAX_MS) ??
      file.keepAliveTimeoutMs ??
      defaults.keepAliveTimeoutMs,
  };
  const { headersTimeoutMs: headers, requestTimeoutMs: request } = timeouts;
  if (request > 0 && headers > request) {
    throw new ConfigError(
      'HEADERS_TIMEOUT_MS',
      `must not exceed REQUEST_TIMEOUT_MS (${headers} > ${request})`,
    );
  }
  return timeouts;
}
