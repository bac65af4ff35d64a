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

  it('opens sessions that expire, cannot be forged, and end when closed', () => {
    const credentials = new AdminCredentials(TOKEN);
    const { value, maxAgeSeconds } = credentials.openSession(1_000);
    assert.equal(credentials.isValidSession(value, 1_000 + maxAgeSeconds * 1000 - 1), true);
    assert.equal(credentials.isValidSession(value, 1_000 + maxAgeSeconds * 1000), false);
    const [expires, nonce, signature] = value.split('.');
    assert.equal(credentials.isValidSession(`${Number(expires) + 1}.${nonce}.${signature}`, 1_000), false);
    assert.equal(credentials.isValidSession('garbage', 1_000), false);
    // Another token signs differently: its sessions are worthless here.
    assert.equal(new AdminCredentials(`${TOKEN}-other`).isValidSession(value, 1_000), false);
    credentials.closeSession(value, 2_000);
    assert.equal(credentials.isValidSession(value, 2_000), false);
    assert.equal(credentials.isValidSession(credentials.openSession(2_000).value, 2_000), true);
  });
});
