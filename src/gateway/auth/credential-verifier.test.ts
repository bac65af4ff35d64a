import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateSecret, hashSecret, secretHashForm } from '../../platform/secret-hash.ts';
import { CredentialVerifier, type KeyEntry, type KeySource } from './credential-verifier.ts';

/** An app's keys as the governance snapshot gives them: a new array whenever they change. */
class FakeKeys implements KeySource {
  reads = 0;
  apps = new Map<string, { secretHash: string; revoked: boolean; extra: KeyEntry[] }>();
  #arrays = new Map<string, readonly KeyEntry[]>();
  keysOf(app: string) {
    this.reads++;
    return this.#arrays.get(app);
  }
  async findApp(name: string) {
    const app = this.apps.get(name);
    return app === undefined ? undefined : { secretHash: app.secretHash, rotatedAt: null };
  }
  async createApp(name: string, secretHash: string, _at: number) {
    this.apps.set(name, { secretHash, revoked: false, extra: [] });
    this.#publish(name);
  }
  async setSecret(name: string, secretHash: string, _at: number) {
    const app = this.apps.get(name);
    if (app) Object.assign(app, { secretHash, revoked: false });
    this.#publish(name);
    return app !== undefined;
  }
  async replaceSecretHash(name: string, keyId: string, expected: string, secretHash: string) {
    const app = this.apps.get(name);
    if (keyId !== 'primary' || app === undefined || app.secretHash !== expected || app.revoked) return false;
    app.secretHash = secretHash;
    this.#publish(name);
    return true;
  }
  async revokeApp(name: string, _at: number) {
    const app = this.apps.get(name);
    if (app) app.revoked = true;
    this.#publish(name);
    return app !== undefined;
  }
  addKey(name: string, key: KeyEntry) {
    this.apps.get(name)?.extra.push(key);
    this.#publish(name);
  }
  #publish(name: string) {
    const app = this.apps.get(name);
    if (app === undefined || app.revoked) this.#arrays.delete(name);
    else
      this.#arrays.set(name, [
        { id: 'primary', name: 'primary', secretHash: app.secretHash, expiresAt: null, revokedAt: null },
        ...app.extra.map((key) => ({ ...key })),
      ]);
  }
}

function setup(options: ConstructorParameters<typeof CredentialVerifier>[2] = {}) {
  let now = 1_000;
  const clock = { now: () => now, monotonic: () => now };
  const store = new FakeKeys();
  const verifier = new CredentialVerifier(store, clock, options);
  return { store, verifier, advance: (ms: number) => (now += ms) };
}

describe('CredentialVerifier', () => {
  it('accepts the right secret and serves repeats from cache, synchronously, naming the key', async () => {
    const { store, verifier } = setup();
    await store.createApp('web', await hashSecret('s1'), 0);
    assert.equal(await verifier.verify('web', 's1'), true);
    for (let i = 0; i < 10; i++)
      assert.deepEqual(verifier.check('web', 's1', ''), { outcome: 'accepted', keyId: 'primary' });
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

  it('verifies concurrent first requests with one scrypt check', async () => {
    const { store, verifier } = setup();
    await store.createApp('web', await hashSecret('s1'), 0);
    const results = await Promise.all(Array.from({ length: 20 }, () => verifier.verify('web', 's1')));
    assert.ok(results.every(Boolean));
    assert.equal(verifier.slowCheckLoad, 0);
  });

  it('caches no unknown name, and a flood of them leaves a real app verified from cache', async () => {
    const { store, verifier } = setup();
    await store.createApp('web', await hashSecret('old'), 0);
    assert.equal(await verifier.verify('web', 'old'), true);
    for (let i = 0; i < 24; i++) assert.equal(await verifier.verify(`ghost-${i}`, generateSecret()), false);
    assert.equal(verifier.cachedNames, 1);
    assert.ok(
      !(verifier.check('web', 'old', '') instanceof Promise),
      'the real app is still served from cache',
    );
    // A rotation is seen at once (the snapshot changed).
    await store.setSecret('web', await hashSecret('new'), 1);
    assert.equal(await verifier.verify('web', 'old'), false);
    assert.equal(await verifier.verify('web', 'new'), true);
  });

  it("accepts any of an app's keys; a revoked or ended key is refused saying so", async () => {
    let now = 10_000;
    const clock = { now: () => now, monotonic: () => now };
    const store = new FakeKeys();
    const uses: string[] = [];
    const verifier = new CredentialVerifier(store, clock, {}, (app, id, minute) =>
      uses.push(`${app}/${id}@${minute}`),
    );
    await store.createApp('web', await hashSecret(generateSecret()), 0);
    const laptop = generateSecret();
    const ci = generateSecret();
    store.addKey('web', {
      id: 'k1',
      name: 'laptop',
      secretHash: await hashSecret(laptop),
      expiresAt: 70_000,
      revokedAt: null,
    });
    store.addKey('web', {
      id: 'k2',
      name: 'ci',
      secretHash: await hashSecret(ci),
      expiresAt: null,
      revokedAt: 5_000,
    });
    assert.deepEqual(await verifier.check('web', laptop, 'a'), { outcome: 'accepted', keyId: 'k1' });
    assert.deepEqual(await verifier.check('web', laptop, 'a'), { outcome: 'accepted', keyId: 'k1' });
    assert.deepEqual(uses, ['web/k1@0'], 'a use is noted once a minute');
    now = 60_500;
    verifier.check('web', laptop, 'a');
    assert.deepEqual(uses, ['web/k1@0', 'web/k1@60000']);
    assert.deepEqual(await verifier.check('web', ci, 'a'), {
      outcome: 'refused',
      reason: 'revoked',
      keyName: 'ci',
      at: 5_000,
    });
    now = 70_000;
    assert.deepEqual(await verifier.check('web', laptop, 'a'), {
      outcome: 'refused',
      reason: 'expired',
      keyName: 'laptop',
      at: 70_000,
    });
    assert.deepEqual(await verifier.check('web', generateSecret(), 'a'), { outcome: 'refused' });
  });

  it('checks a generated secret against its keyed hash at once: a wrong one, for a known or an unknown app, runs no scrypt', async () => {
    const { store, verifier } = setup();
    const secret = generateSecret();
    await store.createApp('web', await hashSecret(secret), 0);
    assert.equal(secretHashForm((await store.findApp('web'))?.secretHash ?? ''), 'keyed');
    assert.equal(await verifier.verify('web', secret, 'a'), true);
    await verifier.verify('ghost', generateSecret(), 'a');
    for (const name of ['web', 'ghost']) {
      // Both records are cached now: the verdict is given synchronously, so no scrypt ran.
      const verdict = verifier.check(name, generateSecret(), 'a');
      assert.ok(!(verdict instanceof Promise), name);
      assert.deepEqual(verdict, { outcome: 'refused' }, name);
    }
    assert.equal(verifier.slowCheckLoad, 0);
  });

  it('runs a non-generated secret through the slow line whether the app exists, is keyed or is unknown', async () => {
    const { store, verifier } = setup();
    await store.createApp('keyed-app', await hashSecret(generateSecret()), 0);
    await store.createApp('scrypt-app', await hashSecret('operator chosen'), 0);
    for (const name of ['keyed-app', 'scrypt-app', 'ghost']) {
      await verifier.verify(name, 'warm the record', 'a');
      const verdict = verifier.check(name, `wrong for ${name}`, 'a');
      assert.ok(verdict instanceof Promise, name);
      assert.equal(verifier.slowCheckLoad, 1, `${name}: a scrypt (real or decoy) runs`);
      assert.deepEqual(await verdict, { outcome: 'refused' });
    }
  });

  it('moves a generated secret stored as scrypt to the keyed form once it verifies, without touching rotatedAt', async () => {
    const { store, verifier } = setup();
    const secret = generateSecret();
    await store.createApp('legacy', await hashScrypt(secret), 0);
    assert.equal(await verifier.verify('legacy', secret, 'a'), true);
    await new Promise((resolve) => setImmediate(resolve));
    const record = await store.findApp('legacy');
    assert.equal(secretHashForm(record?.secretHash ?? ''), 'keyed');
    assert.equal(record?.rotatedAt, null);
    const fresh = new CredentialVerifier(store, { now: () => 0, monotonic: () => 0 });
    assert.equal(store.reads > 0, true);
    assert.ok(!((await fresh.check('legacy', generateSecret(), 'a')) instanceof Promise));
    assert.equal(await fresh.verify('legacy', secret, 'a'), true);
  });

  it('throttles an address past its failures, while a verified credential from it and other addresses go on', async () => {
    const { store, verifier, advance } = setup({ failuresPerAddress: 5, failureWindowMs: 60_000 });
    const secret = generateSecret();
    await store.createApp('web', await hashSecret(secret), 0);
    assert.equal(await verifier.verify('web', secret, 'stranger'), true);
    for (let i = 0; i < 5; i++)
      assert.equal(await verifier.verify('web', generateSecret(), 'stranger'), false);
    const throttled = await verifier.check('web', generateSecret(), 'stranger');
    assert.equal(throttled.outcome, 'throttled');
    assert.ok(throttled.outcome === 'throttled' && throttled.retryAfterSeconds === 60);
    assert.deepEqual(
      await verifier.check('ghost', generateSecret(), 'stranger'),
      throttled,
      'unknown names alike',
    );
    assert.equal(
      await verifier.verify('web', secret, 'stranger'),
      true,
      'a cached credential is not throttled',
    );
    assert.deepEqual(await verifier.check('web', generateSecret(), 'friend'), { outcome: 'refused' });
    advance(60_000);
    assert.deepEqual(await verifier.check('web', generateSecret(), 'stranger'), { outcome: 'refused' });
  });

  it('throttles slow checks for an app name failed from many addresses, not its generated secrets', async () => {
    const { store, verifier } = setup({ failuresPerName: 3 });
    await store.createApp('web', await hashSecret('operator chosen'), 0);
    for (let i = 0; i < 3; i++)
      assert.equal(await verifier.verify('web', `wrong ${i}`, `address ${i}`), false);
    assert.equal((await verifier.check('web', 'wrong 4', 'address 4')).outcome, 'throttled');
    assert.equal((await verifier.check('other', 'wrong 4', 'address 4')).outcome, 'refused');
    assert.equal((await verifier.check('ghost', generateSecret(), 'address 4')).outcome, 'refused');
  });

  it('throttles the slow checks of an address past its slow failures, not its keyed ones', async () => {
    const { store, verifier } = setup({ slowFailuresPerAddress: 2 });
    await store.createApp('web', await hashSecret('operator chosen'), 0);
    for (let i = 0; i < 2; i++) assert.equal(await verifier.verify('web', `wrong ${i}`, 'stranger'), false);
    assert.equal((await verifier.check('other', 'wrong 3', 'stranger')).outcome, 'throttled');
    assert.equal((await verifier.check('other', generateSecret(), 'stranger')).outcome, 'refused');
    assert.equal((await verifier.check('web', 'wrong 3', 'neighbour')).outcome, 'refused');
  });

  it('refuses slow checks past the bounded line without running them', async () => {
    const { store, verifier } = setup({ slowChecksRunning: 1, slowChecksWaiting: 2 });
    await store.createApp('web', await hashSecret('operator chosen'), 0);
    await verifier.verify('web', 'warm', 'a');
    const verdicts = await Promise.all(
      Array.from({ length: 6 }, (_, i) => verifier.check('web', `wrong ${i}`, `address ${i}`)),
    );
    assert.deepEqual(
      verdicts.map((verdict) => verdict.outcome),
      ['refused', 'refused', 'refused', 'throttled', 'throttled', 'throttled'],
    );
  });
});

describe('CredentialVerifier: the slow checks a second', () => {
  it('runs at most the burst of scrypt checks at once, then one per interval', async () => {
    const { store, verifier, advance } = setup({ slowChecksPerSecond: 1, slowChecksBurst: 2 });
    await store.createApp('web', await hashSecret('operator chosen'), 0);
    const outcomes = async () =>
      (
        await Promise.all([0, 1, 2].map((i) => verifier.check('web', `wrong ${i} ${Math.random()}`, `a${i}`)))
      ).map((verdict) => verdict.outcome);
    assert.deepEqual(await outcomes(), ['refused', 'refused', 'throttled']);
    advance(1_000);
    assert.deepEqual(await outcomes(), ['refused', 'throttled', 'throttled']);
    assert.deepEqual(
      (await verifier.check('ghost', generateSecret(), 'a9')).outcome,
      'refused',
      'keyed checks need no token',
    );
  });
});

/** A scrypt hash of any secret, as every secret was stored before decision 0013. */
async function hashScrypt(secret: string): Promise<string> {
  const { scrypt, randomBytes } = await import('node:crypto');
  const salt = randomBytes(16);
  const key = await new Promise<Buffer>((resolve, reject) =>
    scrypt(secret, salt, 32, { N: 16_384, r: 8, p: 1 }, (error, derived) =>
      error ? reject(error) : resolve(derived),
    ),
  );
  return `scrypt$16384$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
}
