import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toAuthorizationServerMetadata, toProtectedResourceMetadata } from './identity-metadata.ts';
import type { OpenIdConfiguration } from './load-identity-discovery.ts';

const openid: OpenIdConfiguration = {
  issuer: 'https://id.example.com',
  authorization_endpoint: 'https://id.example.com/authorize',
  token_endpoint: 'https://id.example.com/token',
  jwks_uri: 'https://id.example.com/jwks',
  response_types_supported: ['code'],
  subject_types_supported: ['public'],
  id_token_signing_alg_values_supported: ['RS256'],
  claims_supported: ['sub', 'email'],
  code_challenge_methods_supported: ['S256'],
};

describe('toAuthorizationServerMetadata', () => {
  it('keeps the RFC 8414 members and drops OpenID-only ones', () => {
    assert.deepEqual(toAuthorizationServerMetadata(openid), {
      issuer: 'https://id.example.com',
      authorization_endpoint: 'https://id.example.com/authorize',
      token_endpoint: 'https://id.example.com/token',
      jwks_uri: 'https://id.example.com/jwks',
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    });
  });
});

describe('toProtectedResourceMetadata', () => {
  it('names the site as the resource and the issuer as its authorization server', () => {
    const metadata = toProtectedResourceMetadata(openid, {
      resource: 'https://www.example.com',
      resourceName: 'Example',
      documentationUrl: 'https://www.example.com/docs',
      termsUrl: 'https://www.example.com/terms',
    });
    assert.deepEqual(metadata, {
      resource: 'https://www.example.com',
      authorization_servers: ['https://id.example.com'],
      bearer_methods_supported: ['header'],
      resource_name: 'Example',
      resource_documentation: 'https://www.example.com/docs',
      resource_tos_uri: 'https://www.example.com/terms',
    });
  });
});
