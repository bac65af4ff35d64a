import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppAdmin } from '../../src/gateway/auth/app-admin.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { verifySecret } from '../../src/platform/secret-hash.ts';
import { AppExistsError, type Storage } from '../../src/storage/ports.ts';

/**
 * Two connections to one database stand for two instances starting together. Every race runs
 * on a name of its own, so one database serves the whole suite.
 */
export function describeAppCreationRaceContract(
  name: string,
  openTwo: () => Promise<{ one: Storage; two: Storage; close: () => Promise<void> }>,
): void {
  describe(`app creation races: ${name}`, () => {
    let one: Storage;
    let two: Storage;
    let close: () => Promise<void>;
    before(async () => {
      ({ one, two, close } = await openTwo());
    });
    after(() => close());

    it('two concurrent creates of one name: exactly one wins, the other gets AppExistsError', async () => {
      for (let i = 0; i < 10; i++) {
        const results = await Promise.allSettled([
          one.apps.createApp(`race-${i}`, 'hash-one', 1),
          two.apps.createApp(`race-${i}`, 'hash-two', 2),
        ]);
        const winners = results.flatMap((result, index) => (result.status === 'fulfilled' ? [index] : []));
        assert.equal(winners.length, 1, `one winner for race-${i}`);
        const loser = results.find((result) => result.status === 'rejected');
        assert.ok(loser?.reason instanceof AppExistsError);
        const stored = await one.apps.findApp(`race-${i}`);
        assert.equal(stored?.secretHash, winners[0] === 0 ? 'hash-one' : 'hash-two');
      }
    });

    it('seeding one name with one secret from both at once succeeds on both, and the secret works', async () => {
      const seeds = Array.from({ length: 5 }, (_, i) => ({
        name: `seed-${i}`,
        secret: `secret-${i}-0123456789`,
      }));
      await Promise.all([
        new AppAdmin(one.apps, systemClock).applySeeds(seeds),
        new AppAdmin(two.apps, systemClock).applySeeds(seeds),
      ]);
      for (const seed of seeds) {
        const stored = await two.apps.findApp(seed.name);
        assert.ok(stored !== undefined && (await verifySecret(seed.secret, stored.secretHash)), seed.name);
        assert.equal(stored.revokedAt, null);
      }
    });

    it('creating an app if absent from both at once: one gets the credential, and it is the stored one', async () => {
      const [first, second] = await Promise.all([
        new AppAdmin(one.apps, systemClock).createIfAbsent('only-once'),
        new AppAdmin(two.apps, systemClock).createIfAbsent('only-once'),
      ]);
      const issued = [first, second].filter((credential) => credential !== undefined);
      assert.equal(issued.length, 1);
      const stored = await one.apps.findApp('only-once');
      assert.ok(stored !== undefined && (await verifySecret(issued[0]?.secret ?? '', stored.secretHash)));
    });
  });
}
