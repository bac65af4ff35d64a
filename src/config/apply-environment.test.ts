import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyEnvironment } from './apply-environment.ts';
import type { ConfigFile } from './config-file-schema.ts';
import { ENV_VARIABLES } from './env-variables.ts';

describe('applyEnvironment', () => {
  const file: ConfigFile = {
    gatewayPort: 9000,
    apps: [{ name: 'web', secret: 'from-file' }],
    connections: { requestTimeoutMs: 1 },
  };

  it('writes each set variable at its path, over the file, and says which variable set it', () => {
    const { settings, fromEnv } = applyEnvironment(
      file,
      {
        GATEWAY_PORT: ' 9100 ',
        HEADERS_TIMEOUT_MS: '5',
        PROVIDER_B_KIND: 'Gemini',
        MAIL_FROM: 'a@example.com',
      },
      ENV_VARIABLES,
    );
    assert.equal(settings.gatewayPort, 9100);
    assert.deepEqual(settings.connections, { requestTimeoutMs: 1, headersTimeoutMs: 5 });
    assert.equal(settings.providers?.['provider-b']?.kind, 'gemini');
    assert.equal(settings.site?.mail?.from, 'a@example.com');
    assert.equal(fromEnv.get('connections.headersTimeoutMs'), 'HEADERS_TIMEOUT_MS');
    assert.equal(fromEnv.has('connections.requestTimeoutMs'), false);
  });

  it('ignores blank variables and leaves the file as it was', () => {
    const { settings } = applyEnvironment(file, { GATEWAY_PORT: '  ', HOST: '' }, ENV_VARIABLES);
    assert.deepEqual(settings, file);
    applyEnvironment(file, { GATEWAY_PORT: '1', GATEWAY_APPS: 'b:c' }, ENV_VARIABLES);
    assert.equal(file.gatewayPort, 9000);
    assert.equal(file.apps?.length, 1);
  });

  it('adds GATEWAY_APPS to the file apps rather than replacing them', () => {
    const { settings } = applyEnvironment(file, { GATEWAY_APPS: 'batch:s' }, ENV_VARIABLES);
    assert.deepEqual(settings.apps, [
      { name: 'web', secret: 'from-file' },
      { name: 'batch', secret: 's' },
    ]);
  });

  it("names the variable when its text is not the setting's type", () => {
    assert.throws(
      () => applyEnvironment({}, { SITE_PORT: 'x' }, ENV_VARIABLES),
      /SITE_PORT must be a whole number/,
    );
  });
});
