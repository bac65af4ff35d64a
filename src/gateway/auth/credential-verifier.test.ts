import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashSecret } from '../../platform/secret-hash.ts';
import type { AppRecord, AppStore } from '../../storage/ports.ts';
import { CredentialVerifier } from './credential-verifier.ts';

class CountingStore implements AppStore {
  reads = 0;
  apps = new Map<string, AppRecord>();
  async findApp(name: string) {
    this.reads++;
    return this.apps.get(name);
  }
  async listApps() {
    return [...this.apps.values()];
  }
  async createApp(name: string, secretHash: string, at: number) {
    this.apps.set(name, { name, secretHash, createdAt: at, rotatedAt: null, revokedAt: null });
  }
  async setSecret(name: string, secretHash: string, at: number) {
    const app = this.apps.get(name);
    if (app) Object.assign(app, { secretHash, rotatedAt: at, revokedAt: null });
    return app !== undefined;
  }
  async revokeApp(name: string, at: number) {
    const app = this.apps.get(name);
    if (app) app.revokedAt = at;
    return app !== undefined;
  }
}

function setup() {
  let now = 1_000;
  const clock = { now: () => now, monotonic: () => now };
  const store = new CountingStore();
  const verifier = new CredentialVerifier(store, clock, { recheckMs: 5_000 });
  return { store, verifier, advance: (ms: number) => (now += ms) };
}

describe('CredentialVerifier', () => {
  it('accepts the right secret and serves repeats from cache without reading the store', async () => {
    const { store, verifier } = setup();
    await store.createApp('web', await hashSecret('s1'), 0);
    assert.equal(await verifier.verify('web', 's1'), true);
    const reads = store.reads;
    for (let i = 0; i < 10; i++) assert.equal(await verifier.verify('web', 's1'), true);
    assert.equal(store.reads, reads);
  });

  it('refuses wrong secrets, unknown apps and revoked apps', async () => {
    const { store, verifier, advance } = setup();
    await store.createApp('web', await hashSecret('s1'), 0);
    assert.equal(await verifier.verify('web', 's2'), false);
    assert.equal(await verifier.verify('ghost', 's1'), false);
    assert.equal(await verifier.verify('web', 's1'), true);
    await store.revokeApp('web', 1);
    advance(5_001);
    assert.equal(await verifier.verify('web', 's1'), false);
  });

  it('sees a rotation after the recheck interval: old secret refused, new accepted', async () => {
    const { store, verifier, advance } = setup();
    await store.createApp('web', await hashSecret('old'), 0);
    assert.equal(await verifier.verify('web', 'old'), true);
    await store.setSecret('web', await hashSecret('new'), 1);
    advance(5_001);
    assert.equal(await verifier.verify('web', 'old'), false);
    assert.equal(await verifier.verify('web', 'new'), true);
  });

  it('verifies concurrent first requests with one store read', async () => {
    const { store, verifier } = setup();
    await store.createApp('web', await hashSecret('s1'), 0);
    const results = await Promise.all(Array.from({ length: 20 }, () => verifier.verify('web', 's1')));
    assert.ok(results.every(Boolean));
    assert.equal(store.reads, 1);
  });

  it('keeps a bounded number of unknown names, and a flood of them leaves a real app verified from cache', async () => {
    let now = 1_000;
    const clock = { now: () => now, monotonic: () => now };
    const store = new CountingStore();
    const verifier = new CredentialVerifier(store, clock, { recheckMs: 5_000, maxRememberedAbsentApps: 8 });
    await store.createApp('web', await hashSecret('old'), 0);
    assert.equal(await verifier.verify('web', 'old'), true);
    const readsBefore = store.reads;
    // Each unknown name costs a decoy scrypt, so the flood is small; the bound is smaller still.
    for (let i = 0; i < 24; i++) assert.equal(await verifier.verify(`ghost-${i}`, 'x'), false);
    assert.equal(store.reads - readsBefore, 24, 'one store read per new unknown name');
    assert.ok(verifier.cachedNames <= 1 + 8, `cached names: ${verifier.cachedNames}`);
    assert.equal(await verifier.verify('web', 'old'), true);
    assert.equal(store.reads - readsBefore, 24, 'the real app is still served from cache');
    // A recent unknown name is still remembered: repeating it reads nothing.
    assert.equal(await verifier.verify('ghost-23', 'x'), false);
    assert.equal(store.reads - readsBefore, 24);
    // Rotation is still seen within the recheck interval.
    await store.setSecret('web', await hashSecret('new'), 1);
    now += 5_001;
    assert.equal(await verifier.verify('web', 'old'), false);
    assert.equal(await verifier.verify('web', 'new'), true);
  });
});
