import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createOriginPolicy } from './origin-policy.ts';

const policy = createOriginPolicy({
  publicSiteUrl: 'https://www.example.com',
  publicGatewayUrl: 'https://api.example.com:8443',
  allowedOrigins: ['https://App.Example.org', 'http://intranet.example:8080/'],
});

describe('createOriginPolicy', () => {
  const cases: [string | undefined, boolean][] = [
    [undefined, true],
    ['https://www.example.com', true],
    ['https://WWW.EXAMPLE.COM', true],
    ['https://www.example.com:443', true],
    ['https://api.example.com:8443', true],
    ['https://api.example.com', false],
    ['http://www.example.com', false],
    ['https://app.example.org', true],
    ['http://intranet.example:8080', true],
    ['http://localhost:6274', true],
    ['http://127.0.0.1:9999', true],
    ['http://[::1]:3000', true],
    ['https://evil.example.com', false],
    ['http://evil.example.com', false],
    ['https://www.example.com.evil.io', false],
    ['null', false],
    ['file://', false],
    ['chrome-extension://abcdef', false],
    ['', false],
  ];
  for (const [origin, allowed] of cases) {
    it(`${origin === undefined ? 'no Origin' : JSON.stringify(origin)} is ${allowed ? 'allowed' : 'refused'}`, () => {
      assert.equal(policy(origin), allowed);
    });
  }

  it('refuses allow-list entries that are not origins', () => {
    for (const entry of ['app.example.org', 'https://app.example.org/path', 'ftp://files.example.org', '*']) {
      assert.throws(
        () =>
          createOriginPolicy({
            publicSiteUrl: 'http://localhost:1',
            publicGatewayUrl: 'http://localhost:2',
            allowedOrigins: [entry],
          }),
        /must be a scheme, host and optional port/,
        entry,
      );
    }
  });
});
