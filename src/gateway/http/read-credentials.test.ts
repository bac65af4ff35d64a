import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { describe, it } from 'node:test';
import { type CredentialReading, readCredentials } from './read-credentials.ts';

function credentialsOf(reading: CredentialReading): { app: string; secret: string } {
  assert.ok(reading.ok, reading.ok ? '' : reading.reason);
  return reading.credentials;
}

function refusal(reading: CredentialReading): string {
  assert.equal(reading.ok, false);
  return reading.ok ? '' : reading.reason;
}

describe('readCredentials', () => {
  it('reads the native header pair', () => {
    assert.deepEqual(credentialsOf(readCredentials({ 'x-gateway-app': 'web', 'x-gateway-secret': 's1' })), {
      app: 'web',
      secret: 's1',
    });
  });

  it('reads Authorization: Bearer <app>:<secret>, the scheme in any case, split at the first colon', () => {
    assert.deepEqual(credentialsOf(readCredentials({ authorization: 'Bearer web:s1' })), {
      app: 'web',
      secret: 's1',
    });
    assert.deepEqual(credentialsOf(readCredentials({ authorization: 'bearer  web:a:b:c' })), {
      app: 'web',
      secret: 'a:b:c',
    });
  });

  it('reads x-api-key: <app>:<secret>, split at the first colon', () => {
    assert.deepEqual(credentialsOf(readCredentials({ 'x-api-key': 'web:s:1' })), {
      app: 'web',
      secret: 's:1',
    });
  });

  it('accepts several forms that name the same credential', () => {
    const headers = {
      'x-gateway-app': 'web',
      'x-gateway-secret': 's:1',
      authorization: 'Bearer web:s:1',
      'x-api-key': 'web:s:1',
    };
    assert.deepEqual(credentialsOf(readCredentials(headers)), { app: 'web', secret: 's:1' });
  });

  it('refuses forms that name different credentials, whichever part differs', () => {
    const disagreeing = [
      { authorization: 'Bearer web:s1', 'x-api-key': 'web:s2' },
      { authorization: 'Bearer web:s1', 'x-api-key': 'batch:s1' },
      { 'x-gateway-app': 'web', 'x-gateway-secret': 's1', 'x-api-key': 'web:s1x' },
      { 'x-gateway-app': 'web', 'x-gateway-secret': 's1', authorization: 'Bearer other:s1' },
    ];
    for (const headers of disagreeing)
      assert.match(refusal(readCredentials(headers)), /different credentials/);
  });

  it('refuses malformed or incomplete forms, naming the accepted ones', () => {
    const malformed = [
      {},
      { 'x-gateway-app': 'web' },
      { 'x-gateway-secret': 's1' },
      { 'x-gateway-app': 'web', 'x-gateway-secret': '' },
      { authorization: 'Bearer s1' },
      { authorization: 'Bearer :s1' },
      { authorization: 'Bearer web:' },
      { authorization: 'Basic d2ViOnMx' },
      { authorization: 'Bearer' },
      { 'x-api-key': 's1' },
      { 'x-api-key': '' },
      { 'x-api-key': `web:${'s'.repeat(5000)}` },
      // A complete native pair does not excuse a malformed second form.
      { 'x-gateway-app': 'web', 'x-gateway-secret': 's1', authorization: 'Bearer s1' },
    ];
    for (const headers of malformed) {
      const reason = refusal(readCredentials(headers));
      assert.match(reason, /Authorization: Bearer <app>:<secret>/, JSON.stringify(headers));
      assert.match(reason, /x-api-key: <app>:<secret>/);
      assert.ok(!reason.includes('s1'), 'the refusal never echoes a secret');
    }
  });

  it('refuses a header given twice (an array), as it cannot tell which one is meant', () => {
    for (const headers of [
      { 'x-gateway-app': 'web', 'x-gateway-secret': ['s1', 's2'] },
      { 'x-gateway-app': ['web', 'other'], 'x-gateway-secret': 's1' },
      { authorization: ['Bearer web:s1', 'Bearer web:s2'] },
      { 'x-api-key': ['web:s1', 'web:s2'] },
    ]) {
      // Node gives a repeated header as an array, which its types allow for few headers.
      const reason = refusal(readCredentials(headers as IncomingHttpHeaders));
      assert.match(reason, /x-api-key: <app>:<secret>/, JSON.stringify(headers));
      assert.ok(!reason.includes('s1') && !reason.includes('s2'), 'the refusal never echoes a secret');
    }
  });
});
