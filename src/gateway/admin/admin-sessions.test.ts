import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SessionRevocations } from '../../storage/ports.ts';
import { AdminCredentials } from './admin-credentials.ts';
import { AdminSessions } from './admin-sessions.ts';

/** Revocations in a Map, counting the calls that reach them. */
function countingRevocations() {
  const revoked = new Map<string, number>();
  const calls: string[] = [];
  const port: SessionRevocations = {
    async revoke(nonce, expiresAt) {
      calls.push('revoke');
      revoked.set(nonce, expiresAt);
    },
    async isRevoked(nonce) {
      calls.push('isRevoked');
      return revoked.has(nonce);
    },
  };
  return { port, calls, revoked };
}

describe('AdminSessions', () => {
  const credentials = new AdminCredentials('a-long-admin-token-for-tests');

  it('a session ends when signed out, and another session of the same token goes on', async () => {
    const { port } = countingRevocations();
    const sessions = new AdminSessions(credentials, port);
    const one = credentials.openSession(1_000).value;
    const two = credentials.openSession(1_000).value;
    assert.equal(await sessions.isSignedIn(one, 2_000), true);
    await sessions.signOut(one, 2_000);
    await sessions.signOut(one, 2_001);
    assert.equal(await sessions.isSignedIn(one, 2_000), false);
    assert.equal(await sessions.isSignedIn(two, 2_000), true);
  });

  it('a forged, foreign or expired value never reaches the database, and is never written', async () => {
    const { port, calls, revoked } = countingRevocations();
    const sessions = new AdminSessions(credentials, port);
    const value = credentials.openSession(1_000).value;
    const [expires, nonce] = value.split('.');
    const refused = [
      'garbage',
      `${expires}.${nonce}.forged-signature`,
      new AdminCredentials('another-long-admin-token').openSession(1_000).value,
      value, // read after it expired
    ];
    for (const candidate of refused) {
      const now = candidate === value ? Number(expires) : 2_000;
      assert.equal(await sessions.isSignedIn(candidate, now), false, candidate);
      await sessions.signOut(candidate, now);
    }
    assert.deepEqual(calls, []);
    assert.equal(revoked.size, 0);
  });

  it('a database that cannot answer fails the check: the session is not taken on faith', async () => {
    const unavailable = new Error('the database is unavailable');
    const sessions = new AdminSessions(credentials, {
      revoke: async () => {
        throw unavailable;
      },
      isRevoked: async () => {
        throw unavailable;
      },
    });
    const value = credentials.openSession(1_000).value;
    await assert.rejects(sessions.isSignedIn(value, 2_000), unavailable);
    await assert.rejects(sessions.signOut(value, 2_000), unavailable);
  });
});
