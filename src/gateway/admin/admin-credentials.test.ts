import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AdminCredentials } from './admin-credentials.ts';

const TOKEN = 'a-long-admin-token-for-tests';

describe('AdminCredentials', () => {
  it('accepts the token and nothing else', () => {
    const credentials = new AdminCredentials(TOKEN);
    assert.equal(credentials.matchesToken(TOKEN), true);
    for (const wrong of ['', TOKEN.slice(0, -1), `${TOKEN}x`, TOKEN.toUpperCase()])
      assert.equal(credentials.matchesToken(wrong), false, wrong);
  });

  it('opens sessions that expire and cannot be forged', () => {
    const credentials = new AdminCredentials(TOKEN);
    const { value, maxAgeSeconds } = credentials.openSession(1_000);
    const [expires, nonce, signature] = value.split('.');
    assert.deepEqual(credentials.readSession(value, 1_000 + maxAgeSeconds * 1000 - 1), {
      nonce,
      expiresAt: 1_000 + maxAgeSeconds * 1000,
    });
    assert.equal(credentials.readSession(value, 1_000 + maxAgeSeconds * 1000), undefined);
    assert.equal(credentials.readSession(`${Number(expires) + 1}.${nonce}.${signature}`, 1_000), undefined);
    assert.equal(credentials.readSession('garbage', 1_000), undefined);
    // Another token signs differently: its sessions are worthless here.
    assert.equal(new AdminCredentials(`${TOKEN}-other`).readSession(value, 1_000), undefined);
    assert.notEqual(credentials.openSession(1_000).value, value, 'each session has its own nonce');
  });
});
