import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  AppExistsError,
  type Storage,
  type UsageAttempt,
  type UsageRecord,
} from '../../src/storage/ports.ts';
import { PLAIN_ATTEMPT_FIELDS, PLAIN_REQUEST_FIELDS } from '../helpers/plain-usage-fields.ts';

export function sampleRecord(id: string, overrides: Partial<UsageRecord> = {}): UsageRecord {
  return {
    id,
    requestId: `req-${id}`,
    app: 'web',
    operation: 'chat',
    frontDoor: 'native',
    task: null,
    provider: 'provider-a',
    model: 'gpt-4o-mini',
    tokensIn: 10,
    tokensOut: 20,
    usageEstimated: false,
    costUsd: 0.000123,
    priceSource: 'genai-prices',
    latencyMs: 12.5,
    upstreamFirstByteMs: 3.25,
    upstreamMs: 11,
    status: 200,
    errorCode: null,
    createdAt: 1_700_000_000_000,
    ...PLAIN_REQUEST_FIELDS,
    attempts: [
      {
        attempt: 0,
        provider: 'provider-a',
        model: 'gpt-4o-mini',
        tokensIn: 0,
        tokensOut: 0,
        usageEstimated: false,
        costUsd: 0,
        latencyMs: 1,
        outcome: 'http_503',
        upstreamStatus: 503,
        ...PLAIN_ATTEMPT_FIELDS,
      },
      {
        attempt: 1,
        provider: 'provider-a',
        model: 'gpt-4o-mini',
        tokensIn: 10,
        tokensOut: 20,
        usageEstimated: false,
        costUsd: 0.000123,
        latencyMs: 9,
        outcome: 'ok',
        upstreamStatus: 200,
        ...PLAIN_ATTEMPT_FIELDS,
      },
    ],
    ...overrides,
  };
}

/** The behaviour every Storage implementation must show; run once per implementation. */
export function describeStorageContract(name: string, open: () => Promise<Storage>): void {
  describe(`storage contract: ${name}`, () => {
    let storage: Storage;
    before(async () => {
      storage = await open();
    });
    after(() => storage.close());

    it('creates, finds and lists apps; a taken name is refused', async () => {
      await storage.apps.createApp('alpha', 'hash-1', 100);
      const found = await storage.apps.findApp('alpha');
      assert.deepEqual(found, {
        name: 'alpha',
        secretHash: 'hash-1',
        createdAt: 100,
        rotatedAt: null,
        revokedAt: null,
      });
      await assert.rejects(storage.apps.createApp('alpha', 'hash-2', 101), AppExistsError);
      assert.equal(await storage.apps.findApp('nobody'), undefined);
      assert.ok((await storage.apps.listApps()).some((a) => a.name === 'alpha'));
    });

    it('rotates and revokes; revoking twice or an unknown app reports false', async () => {
      await storage.apps.createApp('beta', 'h1', 1);
      assert.equal(await storage.apps.setSecret('beta', 'h2', 2), true);
      assert.equal((await storage.apps.findApp('beta'))?.secretHash, 'h2');
      assert.equal(await storage.apps.revokeApp('beta', 3), true);
      assert.equal(await storage.apps.revokeApp('beta', 4), false);
      assert.equal((await storage.apps.findApp('beta'))?.revokedAt, 3);
      assert.equal(await storage.apps.setSecret('beta', 'h3', 5), true, 'a new secret reinstates the app');
      assert.equal((await storage.apps.findApp('beta'))?.revokedAt, null);
      assert.equal(await storage.apps.setSecret('ghost', 'h', 1), false);
      assert.equal(await storage.apps.revokeApp('ghost', 1), false);
    });

    it('replaces a hash only while it is the stored one and the app is active, keeping rotatedAt', async () => {
      await storage.apps.createApp('gamma', 'old', 1);
      assert.equal(await storage.apps.replaceSecretHash('gamma', 'other', 'new'), false);
      assert.equal((await storage.apps.findApp('gamma'))?.secretHash, 'old');
      assert.equal(await storage.apps.replaceSecretHash('gamma', 'old', 'new'), true);
      const found = await storage.apps.findApp('gamma');
      assert.equal(found?.secretHash, 'new');
      assert.equal(found?.rotatedAt, null, 'a change of form is not a rotation');
      await storage.apps.revokeApp('gamma', 2);
      assert.equal(await storage.apps.replaceSecretHash('gamma', 'new', 'newer'), false);
      assert.equal(await storage.apps.replaceSecretHash('ghost', 'x', 'y'), false);
    });

    it('appends usage batches with their attempts and reads them back exactly', async () => {
      const records = [
        sampleRecord('u1'),
        sampleRecord('u2', {
          app: 'other',
          createdAt: 1_700_000_000_500,
          usageEstimated: true,
          frontDoor: 'anthropic',
        }),
      ];
      await storage.usage.appendBatch(records);
      const all = await storage.usage.readRecords({ limit: 100 });
      assert.deepEqual(
        all.filter((r) => r.id === 'u1' || r.id === 'u2'),
        records,
      );
      assert.deepEqual(
        (await storage.usage.readRecords({ app: 'other', limit: 10 })).map((r) => r.id),
        ['u2'],
      );
      assert.deepEqual(
        (await storage.usage.readRecords({ from: 1_700_000_000_100, to: 1_700_000_001_000, limit: 10 })).map(
          (r) => r.id,
        ),
        ['u2'],
      );
    });

    it("round-trips the agent round's fields: cache tokens, a hit, a deployment, an MCP call, a mapped model", async () => {
      const base = sampleRecord('agent-1');
      const records = [
        sampleRecord('agent-1', {
          cacheReadTokens: 1200,
          cacheWrite5mTokens: 300,
          cacheWrite1hTokens: 40,
          deployment: 'us-east',
          attempts: base.attempts.map((attempt) => ({
            ...attempt,
            deployment: attempt.attempt === 0 ? 'eu-west' : 'us-east',
            cacheReadTokens: attempt.attempt === 0 ? 0 : 1200,
            cacheWrite5mTokens: attempt.attempt === 0 ? 0 : 300,
            cacheWrite1hTokens: attempt.attempt === 0 ? 0 : 40,
          })),
        }),
        sampleRecord('agent-2', { cacheHit: true, costSavedUsd: 0.0042, costUsd: 0, attempts: [] }),
        sampleRecord('agent-3', {
          operation: 'mcp_tool',
          provider: null,
          model: null,
          mcpServer: 'docs',
          mcpTool: 'search',
          attempts: [],
        }),
        // A slot's modelMap sent another id: the ledger keeps the client's name beside it (CONTRACT 6.4).
        sampleRecord('agent-4', {
          model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
          clientModel: 'claude-sonnet-4-5',
        }),
      ];
      await storage.usage.appendBatch(records);
      const read = (await storage.usage.readRecords({ limit: 1000 })).filter((r) =>
        r.id.startsWith('agent-'),
      );
      assert.deepEqual(read, records);
    });

    it('skips a record id it already has (a retried batch writes nothing twice)', async () => {
      await storage.usage.appendBatch([sampleRecord('dup')]);
      await storage.usage.appendBatch([sampleRecord('dup', { tokensIn: 999 }), sampleRecord('dup2')]);
      const rows = (await storage.usage.readRecords({ limit: 1000 })).filter((r) => r.id.startsWith('dup'));
      assert.equal(rows.length, 2);
      assert.equal(rows.find((r) => r.id === 'dup')?.tokensIn, 10);
    });

    it('a stored record sent again keeps its attempts, alone or among new records', async () => {
      const original = sampleRecord('again');
      await storage.usage.appendBatch([original]);
      const [, second] = original.attempts;
      const resent = sampleRecord('again', {
        attempts: [{ ...(second as UsageAttempt), attempt: 5, outcome: 'ok' }],
      });
      await storage.usage.appendBatch([resent]);
      await storage.usage.appendBatch([sampleRecord('again-new-1'), resent, sampleRecord('again-new-2')]);
      const rows = (await storage.usage.readRecords({ limit: 1000 })).filter((r) => r.id.startsWith('again'));
      assert.deepEqual(
        rows.map((r) => r.id),
        ['again', 'again-new-1', 'again-new-2'],
      );
      assert.deepEqual(rows[0]?.attempts, original.attempts);
      assert.equal(rows[1]?.attempts.length, 2);
    });

    it('writes a batch of any size whole: 101 records with 202 attempts', async () => {
      const at = 1_750_000_000_000;
      const records = Array.from({ length: 101 }, (_, i) =>
        sampleRecord(`big-${String(i).padStart(3, '0')}`, { createdAt: at + i, tokensIn: i }),
      );
      await storage.usage.appendBatch(records);
      const read = await storage.usage.readRecords({ from: at, to: at + 101, limit: 1000 });
      assert.deepEqual(read, records);
    });

    it('answers ping', async () => {
      await storage.ping();
    });

    it('remembers a revoked session; revoking it again, or at once twice, is no error', async () => {
      const sessions = storage.sessionRevocations;
      assert.equal(await sessions.isRevoked('nonce-a'), false);
      await sessions.revoke('nonce-a', 5_000, 1_000);
      assert.equal(await sessions.isRevoked('nonce-a'), true);
      assert.equal(await sessions.isRevoked('nonce-b'), false);
      await Promise.all([sessions.revoke('nonce-a', 5_000, 1_000), sessions.revoke('nonce-a', 5_000, 1_001)]);
      assert.equal(await sessions.isRevoked('nonce-a'), true);
    });

    it('deletes revocations of expired sessions when another is written, a bounded number at a time', async () => {
      const sessions = storage.sessionRevocations;
      for (let i = 0; i < 150; i++) await sessions.revoke(`old-${i}`, 10_000 + i, 9_000);
      await sessions.revoke('recent', 90_000, 20_000);
      await sessions.revoke('recent-too', 90_000, 20_000);
      // Two writes after every old session expired: 100 deleted by each, until none is left.
      for (let i = 0; i < 150; i++) assert.equal(await sessions.isRevoked(`old-${i}`), false, `old-${i}`);
      assert.equal(await sessions.isRevoked('recent'), true);
      await sessions.revoke('later', 200_000, 90_000);
      assert.equal(await sessions.isRevoked('recent'), false, 'expired at 90 000');
      assert.equal(await sessions.isRevoked('recent-too'), false);
      assert.equal(await sessions.isRevoked('later'), true);
    });
  });
}

/** The prompt-cache and response-cache sums of a totals row (CONTRACT 5.3, 5.5). */
function cache(read: number, write: number, hits: number, saved: number) {
  return { tokensInCacheRead: read, tokensInCacheWrite: write, cacheHits: hits, costSavedUsd: saved };
}

/** Totals and retention, on records written at known times. */
export function describeUsageTotalsContract(name: string, open: () => Promise<Storage>): void {
  describe(`usage totals contract: ${name}`, () => {
    let storage: Storage;
    const day1 = Date.UTC(2026, 0, 1, 10);
    const day2 = Date.UTC(2026, 0, 2, 23, 59);
    before(async () => {
      storage = await open();
      await storage.usage.appendBatch([
        sampleRecord('t1', {
          app: 'tot',
          createdAt: day1,
          tokensIn: 10,
          tokensOut: 5,
          costUsd: 0.1,
          cacheReadTokens: 4,
          cacheWrite5mTokens: 2,
          cacheWrite1hTokens: 1,
        }),
        sampleRecord('t2', {
          app: 'tot',
          createdAt: day1 + 1000,
          provider: 'provider-b',
          tokensIn: 1,
          tokensOut: 1,
          costUsd: 0.2,
          frontDoor: 'openai',
          deployment: 'eu-west',
          cacheHit: true,
          costSavedUsd: 0.05,
        }),
        sampleRecord('t3', {
          app: 'tot',
          createdAt: day2,
          tokensIn: 100,
          tokensOut: 50,
          costUsd: 0.3,
          status: 502,
          errorCode: 'upstream_error',
        }),
        sampleRecord('t4', { app: 'someone-else', createdAt: day1, tokensIn: 1000 }),
      ]);
    });
    after(() => storage.close());

    it('sums an app’s records over a period, with errors counted', async () => {
      const [all] = await storage.usage.totals({ app: 'tot', from: day1, to: day2 + 1, groupBy: [] });
      assert.deepEqual(all, {
        requests: 3,
        errors: 1,
        tokensIn: 111,
        tokensOut: 56,
        costUsd: 0.6,
        tokensInCacheRead: 4,
        tokensInCacheWrite: 3,
        cacheHits: 1,
        costSavedUsd: 0.05,
      });
    });

    it('groups by UTC day and provider', async () => {
      const rows = await storage.usage.totals({
        app: 'tot',
        from: 0,
        to: day2 + 1,
        groupBy: ['day', 'provider'],
      });
      assert.deepEqual(rows, [
        {
          day: '2026-01-01',
          provider: 'provider-a',
          requests: 1,
          errors: 0,
          tokensIn: 10,
          tokensOut: 5,
          costUsd: 0.1,
          ...cache(4, 3, 0, 0),
        },
        {
          day: '2026-01-01',
          provider: 'provider-b',
          requests: 1,
          errors: 0,
          tokensIn: 1,
          tokensOut: 1,
          costUsd: 0.2,
          ...cache(0, 0, 1, 0.05),
        },
        {
          day: '2026-01-02',
          provider: 'provider-a',
          requests: 1,
          errors: 1,
          tokensIn: 100,
          tokensOut: 50,
          costUsd: 0.3,
          ...cache(0, 0, 0, 0),
        },
      ]);
    });

    it('groups by front door, and by front door and provider', async () => {
      const rows = await storage.usage.totals({ app: 'tot', from: 0, to: day2 + 1, groupBy: ['frontDoor'] });
      assert.deepEqual(rows, [
        {
          frontDoor: 'native',
          requests: 2,
          errors: 1,
          tokensIn: 110,
          tokensOut: 55,
          costUsd: 0.4,
          ...cache(4, 3, 0, 0),
        },
        {
          frontDoor: 'openai',
          requests: 1,
          errors: 0,
          tokensIn: 1,
          tokensOut: 1,
          costUsd: 0.2,
          ...cache(0, 0, 1, 0.05),
        },
      ]);
      const both = await storage.usage.totals({
        app: 'tot',
        from: 0,
        to: day2 + 1,
        groupBy: ['provider', 'frontDoor'],
      });
      assert.deepEqual(
        both.map((r) => [r.provider, r.frontDoor, r.requests]),
        [
          ['provider-a', 'native', 2],
          ['provider-b', 'openai', 1],
        ],
      );
    });

    it('groups by deployment, null for a slot of one', async () => {
      const rows = await storage.usage.totals({ app: 'tot', from: 0, to: day2 + 1, groupBy: ['deployment'] });
      assert.deepEqual(
        rows.map((r) => [r.deployment, r.requests]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
        [
          ['eu-west', 1],
          [null, 2],
        ],
      );
    });

    it('an empty period sums to zero', async () => {
      const [none] = await storage.usage.totals({ app: 'tot', from: 0, to: 1, groupBy: [] });
      assert.deepEqual(none, {
        requests: 0,
        errors: 0,
        tokensIn: 0,
        tokensOut: 0,
        costUsd: 0,
        ...cache(0, 0, 0, 0),
      });
    });

    it('retention deletes records before the cutoff, with their attempts', async () => {
      const deleted = await storage.usage.deleteBefore(day1 + 500);
      assert.equal(deleted, 2);
      const left = await storage.usage.readRecords({ limit: 100 });
      assert.deepEqual(left.map((r) => r.id).sort(), ['t2', 't3']);
      assert.equal(left[0]?.attempts.length, 2);
    });
  });
}

/** Keyset paging over the ledger, as the export uses it. */
export function describeUsagePagingContract(name: string, open: () => Promise<Storage>): void {
  describe(`usage paging contract: ${name}`, () => {
    it('pages through records in (createdAt, id) order without gaps or repeats', async () => {
      const storage = await open();
      const at = 1_800_000_000_000;
      const ids = ['p1', 'p2', 'p3', 'p4', 'p5'];
      await storage.usage.appendBatch(
        ids.map((id, i) => sampleRecord(id, { createdAt: at + (i < 3 ? 0 : i) })),
      );
      const seen: string[] = [];
      let after: { createdAt: number; id: string } | undefined;
      for (;;) {
        const page = await storage.usage.readRecords({ from: at, limit: 2, ...(after ? { after } : {}) });
        if (page.length === 0) break;
        seen.push(...page.map((r) => r.id));
        const last = page.at(-1) as UsageRecord;
        after = { createdAt: last.createdAt, id: last.id };
      }
      assert.deepEqual(seen, ids);
      await storage.close();
    });
  });
}

export { describeSubscriberContract } from './subscriber-contract.ts';
