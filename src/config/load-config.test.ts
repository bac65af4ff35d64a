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

describe('loadConfig', () => {
  it('runs on embedded defaults with no settings at all', () => {
    const config = loadConfig({}, []);
    assert.equal(config.gatewayPort, 8787);
    assert.equal(config.sitePort, 8788);
    assert.deepEqual(config.surfaces, { gateway: true, site: true });
    assert.equal(config.providers['provider-a'].kind, 'simulated');
    assert.equal(config.providers['provider-b'].chatModel, 'simulated-chat');
    assert.equal(config.maxBodyBytes, 4 * 1024 * 1024);
    assert.equal(config.site.newsletterRateLimitPerMinute, 10);
    assert.equal(config.publicGatewayUrl, 'http://localhost:8787');
    assert.deepEqual(
      config.routing.chat.map((c) => c.provider),
      ['provider-a', 'provider-b', 'provider-c'],
    );
  });

  it('takes environment variables over the file', () => {
    const file = yamlFile('gatewayPort: 9000\nsitePort: 9001\nlogLevel: debug\n');
    const config = loadConfig({ CONFIG_FILE: file, GATEWAY_PORT: '9100', PROVIDER_B_CHAT_MODEL: 'big' }, []);
    assert.equal(config.gatewayPort, 9100);
    assert.equal(config.sitePort, 9001);
    assert.equal(config.logLevel, 'debug');
    assert.equal(config.providers['provider-b'].chatModel, 'big');
  });

  it('parses GATEWAY_APPS, secrets may contain colons', () => {
    const config = loadConfig({ GATEWAY_APPS: 'web:s3cret, batch:a:b:c' }, []);
    assert.deepEqual(config.apps, [
      { name: 'web', secret: 's3cret' },
      { name: 'batch', secret: 'a:b:c' },
    ]);
  });

  it('selects one surface by flag or env', () => {
    assert.deepEqual(loadConfig({}, ['--surface=site']).surfaces, { gateway: false, site: true });
    assert.deepEqual(loadConfig({ SURFACES: 'gateway' }, []).surfaces, { gateway: true, site: false });
  });

  const bad: { env: Record<string, string>; setting: RegExp }[] = [
    { env: { GATEWAY_PORT: 'eighty' }, setting: /GATEWAY_PORT/ },
    { env: { SITE_PORT: '70000' }, setting: /SITE_PORT/ },
    { env: { GATEWAY_PORT: '9000', SITE_PORT: '9000' }, setting: /SITE_PORT/ },
    { env: { PROVIDER_A_KIND: 'mistral' }, setting: /PROVIDER_A_KIND/ },
    { env: { PROVIDER_C_KIND: 'anthropic' }, setting: /PROVIDER_C_API_KEY/ },
    { env: { PROVIDER_B_KIND: 'openai' }, setting: /PROVIDER_B_API_KEY/ },
    { env: { PROVIDER_A_BASE_URL: 'not a url' }, setting: /PROVIDER_A_BASE_URL/ },
    { env: { DATABASE_URL: 'mysql://x' }, setting: /DATABASE_URL/ },
    { env: { REDIS_URL: 'http://x' }, setting: /REDIS_URL/ },
    { env: { LOG_LEVEL: 'loud' }, setting: /LOG_LEVEL/ },
    { env: { MAX_BODY_BYTES: '-1' }, setting: /MAX_BODY_BYTES/ },
    { env: { NEWSLETTER_RATE_LIMIT_PER_MINUTE: '0' }, setting: /NEWSLETTER_RATE_LIMIT_PER_MINUTE/ },
    { env: { GATEWAY_APPS: 'no-secret' }, setting: /GATEWAY_APPS/ },
    { env: { GATEWAY_APPS: 'bad name:x' }, setting: /GATEWAY_APPS/ },
    { env: { SURFACES: 'everything' }, setting: /SURFACES/ },
    { env: { CONFIG_FILE: '/no/such/file.yaml' }, setting: /CONFIG_FILE/ },
  ];
  for (const { env, setting } of bad) {
    it(`names the bad setting: ${JSON.stringify(env)}`, () => {
      assert.match(configFailure(env).message, setting);
    });
  }

  it('names the key and file for a bad YAML value or a typo', () => {
    const typo = yamlFile('gatewayPrt: 1\n');
    assert.match(configFailure({ CONFIG_FILE: typo }).message, /gatewayPrt/);
    const kind = yamlFile('providers:\n  provider-a:\n    kind: nope\n');
    assert.match(configFailure({ CONFIG_FILE: kind }).message, /providers\.provider-a\.kind.*openai/);
    const route = yamlFile('routing:\n  chat:\n    - provider: provider-z\n');
    assert.match(configFailure({ CONFIG_FILE: route }).message, /routing\.chat\.0\.provider/);
    const notYaml = yamlFile('a: [unclosed\n');
    assert.match(configFailure({ CONFIG_FILE: notYaml }).message, /not valid YAML/);
  });

  it('refuses an embeddings route through Anthropic', () => {
    const file = yamlFile('routing:\n  embed:\n    - provider: provider-b\n');
    assert.match(
      configFailure({ CONFIG_FILE: file, PROVIDER_B_KIND: 'anthropic', PROVIDER_B_API_KEY: 'k' }).message,
      /routing\.embed/,
    );
  });

  it('never puts a secret into an error message', () => {
    const message = configFailure({ GATEWAY_APPS: 'ok:topsecretvalue,bad name:othersecret' }).message;
    assert.doesNotMatch(message, /topsecretvalue|othersecret/);
    const keyed = configFailure({
      PROVIDER_A_KIND: 'gemini',
      PROVIDER_A_API_KEY: 'sk-live-123',
      PROVIDER_A_BASE_URL: '::',
    }).message;
    assert.doesNotMatch(keyed, /sk-live-123/);
  });
});

describe('network settings', () => {
  it('reads TRUST_PROXY as a flag, a hop count or addresses', () => {
    assert.equal(loadConfig({}, []).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }, []).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }, []).trustProxy, 2);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }, []).trustProxy, [
      '10.0.0.0/8',
      '127.0.0.1',
    ]);
    assert.throws(() => loadConfig({ TRUST_PROXY: 'the proxy' }, []), /TRUST_PROXY/);
  });

  it('reads MCP_ALLOWED_ORIGINS as origins and names it when one is not', () => {
    assert.deepEqual(
      loadConfig({ MCP_ALLOWED_ORIGINS: 'https://app.example.com, http://localhost:3000' }, []).site
        .mcpAllowedOrigins,
      ['https://app.example.com', 'http://localhost:3000'],
    );
    assert.throws(
      () => loadConfig({ MCP_ALLOWED_ORIGINS: 'https://app.example.com/path' }, []),
      /MCP_ALLOWED_ORIGINS/,
    );
    assert.throws(() => loadConfig({ MCP_ALLOWED_ORIGINS: 'app.example.com' }, []), /MCP_ALLOWED_ORIGINS/);
  });
});
