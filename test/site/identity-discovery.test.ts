import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { SITE_URL, shareSite } from '../helpers/site-harness.ts';

describe('OAuth and OpenID discovery without IDENTITY_DISCOVERY_FILE', () => {
  const h = shareSite();

  for (const url of [
    '/.well-known/openid-configuration',
    '/.well-known/oauth-authorization-server',
    '/.well-known/oauth-protected-resource',
  ]) {
    it(`${url} answers 404 with the envelope`, async () => {
      const res = await h.get(url);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'not_found');
    });
  }
});

describe('OAuth and OpenID discovery with IDENTITY_DISCOVERY_FILE', () => {
  const fixture = new URL('../fixtures/site/openid-configuration.json', import.meta.url).pathname;
  const h = shareSite({ env: { IDENTITY_DISCOVERY_FILE: fixture } });
  const get = async (url: string) => {
    const res = await h.get(url);
    assert.equal(res.status, 200, url);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    return res.body;
  };

  it("serves the provider's OpenID configuration as given", async () => {
    assert.deepEqual(
      await get('/.well-known/openid-configuration'),
      JSON.parse(readFileSync(fixture, 'utf8')),
    );
  });

  it('derives RFC 8414 authorization server metadata, without OpenID-only members', async () => {
    const metadata = await get('/.well-known/oauth-authorization-server');
    assert.equal(metadata.issuer, 'https://id.example.test/realms/site');
    assert.equal(
      metadata.token_endpoint,
      'https://id.example.test/realms/site/protocol/openid-connect/token',
    );
    assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(metadata.grant_types_supported, [
      'authorization_code',
      'refresh_token',
      'client_credentials',
    ]);
    assert.equal(metadata.claims_supported, undefined);
    assert.equal(metadata.subject_types_supported, undefined);
  });

  it('publishes RFC 9728 metadata naming the site as the resource and the issuer as its server', async () => {
    assert.deepEqual(await get('/.well-known/oauth-protected-resource'), {
      resource: SITE_URL,
      authorization_servers: ['https://id.example.test/realms/site'],
      bearer_methods_supported: ['header'],
      resource_name: 'Fieldstone Gateway',
      resource_documentation: `${SITE_URL}/docs/site-api`,
      resource_policy_uri: `${SITE_URL}/privacy`,
      resource_tos_uri: `${SITE_URL}/terms`,
    });
  });
});
