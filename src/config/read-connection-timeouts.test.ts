import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from './config-error.ts';
import { loadConfig } from './load-config.ts';

function yamlFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'config.yaml');
  writeFileSync(path, text);
  return path;
}

describe('connection timeouts and the site per-client cap', () => {
  it('default to 15 s headers, 60 s request, 72 s keep-alive and 32 requests per client', () => {
    const config = loadConfig({}, []);
    assert.deepEqual(config.connections, {
      headersTimeoutMs: 15_000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 72_000,
    });
    assert.equal(config.site.maxConcurrentRequestsPerClient, 32);
  });

  it('are read from the YAML file, and the environment wins', () => {
    const file = yamlFile(
      'connections: { headersTimeoutMs: 5000, requestTimeoutMs: 20000, keepAliveTimeoutMs: 9000 }\n' +
        'site: { maxConcurrentRequestsPerClient: 4 }\n',
    );
    const fromFile = loadConfig({ CONFIG_FILE: file }, []);
    assert.deepEqual(fromFile.connections, {
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 20_000,
      keepAliveTimeoutMs: 9_000,
    });
    assert.equal(fromFile.site.maxConcurrentRequestsPerClient, 4);
    const fromEnv = loadConfig(
      { CONFIG_FILE: file, HEADERS_TIMEOUT_MS: '1000', SITE_MAX_CONCURRENT_REQUESTS_PER_CLIENT: '0' },
      [],
    );
    assert.equal(fromEnv.connections.headersTimeoutMs, 1_000);
    assert.equal(fromEnv.connections.requestTimeoutMs, 20_000);
    assert.equal(fromEnv.site.maxConcurrentRequestsPerClient, 0);
  });

  it('refuse a headers timeout longer than the request timeout (Node would throw at start-up)', () => {
    assert.throws(
      () => loadConfig({ HEADERS_TIMEOUT_MS: '30000', REQUEST_TIMEOUT_MS: '10000' }, []),
      (error: unknown) => error instanceof ConfigError && error.message.includes('HEADERS_TIMEOUT_MS'),
    );
    assert.throws(() => loadConfig({ KEEP_ALIVE_TIMEOUT_MS: '0' }, []), ConfigError);
    assert.throws(() => loadConfig({ REQUEST_TIMEOUT_MS: 'soon' }, []), ConfigError);
  });
});
