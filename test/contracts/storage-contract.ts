import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppExistsError, type Storage, type UsageRecord } from '../../src/storage/ports.ts';

export function sampleRecord(id: string, overrides: Partial<UsageRecord> = {}): UsageRecord {
  return {
    id,
    requestId: `req-${id}`,
    app: 'web',
    operation: 'chat',
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

    it('appends usage batches with their attempts and reads them back exactly', async () => {
      const records = [
        sampleRecord('u1'),
        sampleRecord('u2', { app: 'other', createdAt: 1_700_000_000_500, usageEstimated: true }),
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

    it('skips a record id it already has (a retried batch writes nothing twice)', async () => {
      await storage.usage.appendBatch([sampleRecord('dup')]);
      await storage.usage.appendBatch([sampleRecord('dup', { tokensIn: 999 }), sampleRecord('dup2')]);
      const rows = (await storage.usage.readRecords({ limit: 1000 })).filter((r) => r.id.startsWith('dup'));
      assert.equal(rows.length, 2);
      assert.equal(rows.find((r) => r.id === 'dup')?.tokensIn, 10);
    });

    it('answers ping', async () => {
      await storage.ping();
    });
  });
}
