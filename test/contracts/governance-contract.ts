import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConflictError } from '../../src/storage/governance-ports.ts';
import type { Storage } from '../../src/storage/ports.ts';

/** The governance store (CONTRACT 6.5, migration 009), the same on every engine. */
export function describeGovernanceContract(name: string, open: () => Promise<Storage>): void {
  describe(`governance store contract: ${name}`, () => {
    let storage: Storage;
    before(async () => {
      storage = await open();
    });
    after(() => storage.close());

    it('creates, finds, updates and deletes teams; a duplicate name is a ConflictError', async () => {
      const g = storage.governance;
      const made = await g.createTeam(
        'search',
        { limits: { dailyBudgetUsd: 5 }, models: ['provider-a/*'] },
        'api',
        10,
      );
      assert.equal(made.name, 'search');
      await assert.rejects(g.createTeam('search', {}, 'api', 11), ConflictError);
      assert.deepEqual((await g.findTeam('search'))?.settings.models, ['provider-a/*']);
      const updated = await g.updateTeam('search', { metadata: { owner: 'ana' } }, 12);
      assert.deepEqual(updated?.settings, { metadata: { owner: 'ana' } });
      assert.equal(await g.updateTeam('nobody', {}, 12), undefined);
      assert.equal(await g.deleteTeam('search', false, 13), 'deleted');
      assert.equal(await g.findTeam('search'), undefined);
      assert.equal(await g.deleteTeam('search', false, 14), 'not_found');
      // The name is free again.
      await g.createTeam('search', {}, 'api', 15);
      assert.deepEqual((await g.listTeams()).map((t) => t.name).includes('search'), true);
    });

    it('a team with apps is deleted only with force, which takes its apps out of it', async () => {
      const g = storage.governance;
      await g.createTeam('ads', {}, 'api', 1);
      await storage.apps.createApp('ads-web', 'h1', 1);
      assert.equal(
        await g.updateAppSettings('ads-web', { team: 'ads', settings: { models: ['gpt-*'] } }),
        true,
      );
      assert.equal((await g.findAppSettings('ads-web'))?.team, 'ads');
      assert.equal(await g.deleteTeam('ads', false, 2), 'has_apps');
      assert.equal(await g.deleteTeam('ads', true, 3), 'deleted');
      const app = await g.findAppSettings('ads-web');
      assert.equal(app?.team, null);
      assert.deepEqual(app?.settings.models, ['gpt-*']);
    });

    it('the configuration resets its own teams and never one the API made', async () => {
      const g = storage.governance;
      assert.equal(await g.resetConfigTeam('platform', { models: ['a'] }, 1), true);
      assert.equal(await g.resetConfigTeam('platform', { models: ['b'] }, 2), true);
      assert.deepEqual((await g.findTeam('platform'))?.settings.models, ['b']);
      await g.createTeam('made-by-api', { models: ['x'] }, 'api', 1);
      assert.equal(await g.resetConfigTeam('made-by-api', { models: ['y'] }, 2), false);
      assert.deepEqual((await g.findTeam('made-by-api'))?.settings.models, ['x']);
    });

    it("an app's first secret is its key `primary`, kept in step with the app's secret", async () => {
      await storage.apps.createApp('keyed', 'hash-1', 100);
      let keys = await storage.governance.listKeys('keyed');
      assert.deepEqual(
        keys.map((k) => [k.id, k.secretHash]),
        [['primary', 'hash-1']],
      );
      await storage.apps.setSecret('keyed', 'hash-2', 200);
      keys = await storage.governance.listKeys('keyed');
      assert.equal(keys[0]?.secretHash, 'hash-2');
      assert.equal(await storage.apps.replaceSecretHash('keyed', 'hash-2', 'hash-3'), true);
      assert.equal((await storage.governance.listKeys('keyed'))[0]?.secretHash, 'hash-3');
    });

    it('holds at most the given number of live keys, also when creations race', async () => {
      const g = storage.governance;
      await storage.apps.createApp('many', 'h', 1);
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          g.createKey(
            {
              app: 'many',
              id: `k${i}`,
              name: `laptop ${i}`,
              secretHash: `h${i}`,
              createdAt: 5,
              expiresAt: null,
            },
            20,
          ),
        ),
      );
      assert.equal(results.filter((r) => r === 'created').length, 19, 'primary and 19 more');
      assert.equal(results.filter((r) => r === 'too_many').length, 11);
      assert.equal(
        await g.createKey(
          { app: 'nope', id: 'x', name: 'x', secretHash: 'h', createdAt: 5, expiresAt: null },
          20,
        ),
        'no_app',
      );
      const created = results.indexOf('created');
      assert.equal(await g.revokeKey('many', `k${created}`, 6), true);
      assert.equal(await g.revokeKey('many', `k${created}`, 7), false);
      assert.equal(
        await g.createKey(
          { app: 'many', id: 'again', name: 'n', secretHash: 'h', createdAt: 8, expiresAt: null },
          20,
        ),
        'created',
      );
      assert.equal(
        await g.createKey(
          { app: 'many', id: 'again', name: 'n', secretHash: 'h', createdAt: 8, expiresAt: null },
          99,
        ),
        'exists',
      );
    });

    it('ends a key by a time never later than it already ends, and notes last use never backwards', async () => {
      const g = storage.governance;
      await storage.apps.createApp('ending', 'h', 1);
      await g.createKey(
        { app: 'ending', id: 'k', name: 'k', secretHash: 'h', createdAt: 1, expiresAt: 5_000 },
        20,
      );
      assert.equal(await g.endKeyBy('ending', 'k', 9_000), true);
      assert.equal((await g.listKeys('ending')).find((k) => k.id === 'k')?.expiresAt, 5_000);
      await g.endKeyBy('ending', 'k', 2_000);
      assert.equal((await g.listKeys('ending')).find((k) => k.id === 'k')?.expiresAt, 2_000);
      await g.touchKeys([{ app: 'ending', id: 'k', minute: 120_000 }]);
      await g.touchKeys([{ app: 'ending', id: 'k', minute: 60_000 }]);
      assert.equal((await g.listKeys('ending')).find((k) => k.id === 'k')?.lastUsedAt, 120_000);
    });

    it('answers the changes since a version, and nothing when nothing changed', async () => {
      const g = storage.governance;
      const start = await g.version();
      const none = await g.changesSince(start);
      assert.equal(none.version, start);
      assert.equal(none.teams.length + none.apps.length + none.keys.length + none.tokens.length, 0);
      await g.createTeam('versioned', {}, 'api', 1);
      await storage.apps.createApp('versioned-app', 'h', 1);
      await g.createTeamToken({ id: 'tok1', team: 'versioned', name: 'ci', tokenHash: 'th', createdAt: 1 });
      const changes = await g.changesSince(start);
      assert.ok(changes.version >= start + 3);
      assert.deepEqual(
        changes.teams.map((t) => t.name),
        ['versioned'],
      );
      assert.deepEqual(
        changes.apps.map((a) => a.name),
        ['versioned-app'],
      );
      assert.deepEqual(
        changes.keys.map((k) => `${k.app}/${k.id}`),
        ['versioned-app/primary'],
      );
      assert.deepEqual(
        changes.tokens.map((t) => t.id),
        ['tok1'],
      );
      assert.equal(await g.revokeTeamToken('other-team', 'tok1', 2), false);
      assert.equal(await g.revokeTeamToken('versioned', 'tok1', 2), true);
      const later = await g.changesSince(changes.version);
      assert.equal(later.tokens[0]?.revokedAt, 2);
      // A full read (0) holds every row.
      const all = await g.changesSince(0);
      assert.ok(all.apps.some((a) => a.name === 'keyed'));
    });

    it('keeps the audit newest first, by team, paged by time, and deletes old entries', async () => {
      const g = storage.governance;
      for (let i = 1; i <= 5; i++)
        await g.appendAudit({
          id: `a${i}`,
          at: 1_000 * i,
          actor: 'admin',
          action: 'team.update',
          target: `team:t${i % 2}`,
          team: `t${i % 2}`,
          before: { n: i - 1 },
          after: { n: i },
        });
      const newest = await g.listAudit({ limit: 2 });
      assert.deepEqual(
        newest.map((e) => e.id),
        ['a5', 'a4'],
      );
      assert.deepEqual(newest[0]?.after, { n: 5 });
      assert.deepEqual(
        (await g.listAudit({ team: 't1', limit: 10 })).map((e) => e.id),
        ['a5', 'a3', 'a1'],
      );
      assert.deepEqual(
        (await g.listAudit({ before: 3_000, limit: 10 })).map((e) => e.id),
        ['a2', 'a1'],
      );
      assert.equal(await g.deleteAuditBefore(3_000), 2);
      assert.equal((await g.listAudit({ limit: 10 })).length, 3);
    });
  });
}
