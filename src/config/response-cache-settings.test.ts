import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { configFailure } from '../../test/helpers/config-failure.ts';
import { loadConfig } from './load-config.ts';

function yamlFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'config.yaml');
  writeFileSync(path, text);
  return path;
}

describe('responseCache settings', () => {
  it('are off by default, one hour, 64 MiB in process, 1 MiB an entry, no coalescing', () => {
    assert.deepEqual(loadConfig({}, []).responseCache, {
      enabled: false,
      ttlSeconds: 3600,
      maxBytes: 64 * 1024 * 1024,
      maxEntryBytes: 1024 * 1024,
      coalesce: false,
      apps: {},
      routes: { chat: {}, tasks: {} },
    });
  });

  it("take the file's apps and routes (the example of docs/configuration.md)", () => {
    const file = yamlFile(
      [
        'routing:',
        '  tasks:',
        '    summarize: [{ provider: provider-a }]',
        'responseCache:',
        '  enabled: false',
        '  ttlSeconds: 3600',
        '  coalesce: true',
        '  apps:',
        '    support-bot: { enabled: true, ttlSeconds: 600 }',
        '  routes:',
        '    chat: { enabled: false }',
        '    tasks:',
        '      summarize: { enabled: true, ttlSeconds: 86400 }',
        '',
      ].join('\n'),
    );
    const cache = loadConfig({ CONFIG_FILE: file }, []).responseCache;
    assert.equal(cache.coalesce, true);
    assert.deepEqual(cache.apps, { 'support-bot': { enabled: true, ttlSeconds: 600 } });
    assert.deepEqual(cache.routes.tasks, { summarize: { enabled: true, ttlSeconds: 86400 } });
  });

  it('refuse a route entry for a task that is not configured, and a TTL of 0', () => {
    const typo = yamlFile('responseCache:\n  routes:\n    tasks:\n      sumarize: { enabled: true }\n');
    assert.match(configFailure({ CONFIG_FILE: typo }).message, /responseCache\.routes\.tasks\.sumarize/);
    const zero = yamlFile('responseCache:\n  ttlSeconds: 0\n');
    assert.match(configFailure({ CONFIG_FILE: zero }).message, /ttlSeconds/);
  });
});
