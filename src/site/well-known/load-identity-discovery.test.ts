import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from '../../config/config-error.ts';
import { checkOpenIdConfiguration, loadIdentityDiscovery } from './load-identity-discovery.ts';

const PROVIDER = {
  issuer: 'https://id.example.com',
  authorization_endpoint: 'https://id.example.com/authorize',
  token_endpoint: 'https://id.example.com/oauth/token',
  jwks_uri: 'https://id.example.com/.well-known/jwks.json',
  response_types_supported: ['code'],
  subject_types_supported: ['public'],
  id_token_signing_alg_values_supported: ['RS256'],
};

function write(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'oidc-')), 'openid-configuration.json');
  writeFileSync(file, text);
  return file;
}

function failure(file: string): string {
  try {
    loadIdentityDiscovery(file);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    assert.equal(error.setting, 'IDENTITY_DISCOVERY_FILE');
    return error.message;
  }
  assert.fail('the document was accepted');
}

describe('loadIdentityDiscovery', () => {
  it('accepts a complete provider document', () => {
    assert.deepEqual(loadIdentityDiscovery(write(JSON.stringify(PROVIDER))), PROVIDER);
  });

  it('names the setting for a missing file, bad JSON and a non-object', () => {
    assert.match(failure('/nonexistent/openid.json'), /IDENTITY_DISCOVERY_FILE cannot be read/);
    assert.match(failure(write('{"issuer":')), /IDENTITY_DISCOVERY_FILE is not valid JSON/);
    assert.match(failure(write('[]')), /must be a JSON object/);
  });

  it('reports every missing required member at once', () => {
    const message = failure(write(JSON.stringify({ issuer: 'https://id.example.com' })));
    for (const key of [
      'authorization_endpoint',
      'token_endpoint',
      'jwks_uri',
      'response_types_supported',
      'subject_types_supported',
      'id_token_signing_alg_values_supported',
    ]) {
      assert.match(message, new RegExp(`${key} is required`));
    }
  });
});

describe('checkOpenIdConfiguration', () => {
  const check = (patch: Record<string, unknown>) => checkOpenIdConfiguration({ ...PROVIDER, ...patch });

  it('wants an https issuer without query or fragment (http only for localhost)', () => {
    assert.deepEqual(check({ issuer: 'http://id.example.com' }), ['issuer must use https']);
    assert.deepEqual(check({ issuer: 'https://id.example.com/?tenant=1' }), [
      'issuer must not have a query or fragment',
    ]);
    assert.deepEqual(check({ issuer: 'not a url' }), ['issuer must be an absolute URL']);
    assert.deepEqual(check({ issuer: 'http://localhost:9000', jwks_uri: 'http://localhost:9000/jwks' }), []);
  });

  it('checks URL and list members by their names', () => {
    assert.deepEqual(check({ jwks_uri: '/jwks' }), ['jwks_uri must be an absolute https URL']);
    assert.deepEqual(check({ userinfo_endpoint: 42 }), ['userinfo_endpoint must be an absolute https URL']);
    assert.deepEqual(check({ scopes_supported: 'openid' }), [
      'scopes_supported must be a non-empty array of strings',
    ]);
    assert.deepEqual(check({ response_types_supported: [] }), [
      'response_types_supported must be a non-empty array of strings',
    ]);
    assert.deepEqual(
      check({ claims_parameter_supported: true }),
      [],
      'boolean *_supported members are left alone',
    );
  });

  it('does not require an authorization endpoint when no supported grant uses it', () => {
    const { authorization_endpoint: _, ...clientCredentialsOnly } = PROVIDER;
    assert.deepEqual(
      checkOpenIdConfiguration({ ...clientCredentialsOnly, grant_types_supported: ['client_credentials'] }),
      [],
    );
    assert.deepEqual(
      checkOpenIdConfiguration({ ...clientCredentialsOnly, grant_types_supported: ['authorization_code'] }),
      ['authorization_endpoint is required'],
    );
  });
});
