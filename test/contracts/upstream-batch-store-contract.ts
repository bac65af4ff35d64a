import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Storage } from '../../src/storage/ports.ts';
import { sampleRecord } from './storage-contract.ts';

const NOW = 1_900_000_000_000;
const DAY = 86_400_000;
const LEASE = 60_000;

async function upstreamBatch(storage: Storage, id: string, total: number): Promise<void> {
  const store = storage.batches;
  await store.createBatch({
    id,
    app: 'web',
    flavor: 'openai',
    endpoint: '/v1/chat/completions',
    inputFileId: null,
    completionWindow: '24h',
    metadata: null,
    total,
    createdAt: NOW,
    expiresAt: NOW + DAY,
  });
  const items = Array.from({ length: total }, (_, i) => ({
    line: i + 1,
    customId: `c${i + 1}`,
    ledgerId: `${id}-row-${i + 1}`,
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [] }),
  }));
  await store.addItems(id, items);
  await store.upstream.route(id, 'provider-a');
  await store.startBatch(id, NOW);
}

const answer = { state: 'succeeded' as const, statusCode: 200, requestId: 'r', response: '{"ok":true}' };

/** The UpstreamBatchStore (migration 013): batches a vendor's batch API runs, the same on every engine. */
export function describeUpstreamBatchStoreContract(name: string, open: () => Promise<Storage>): void {
  describe(`${name}: vendor batches`, () => {
    let storage: Storage;
    before(async () => {
      storage = await open();
    });
    after(() => storage.close());

    it('leases a vendor batch to one claim at a time; the runner never takes its items', async () => {
      await upstreamBatch(storage, 'up-1', 2);
      const [first, second] = await Promise.all([
        storage.batches.upstream.claim('a', NOW, LEASE, 10),
        storage.batches.upstream.claim('b', NOW, LEASE, 10),
      ]);
      const claims = [...(first ?? []), ...(second ?? [])].filter((c) => c.batch.id === 'up-1');
      assert.equal(claims.length, 1, 'one claim holds it');
      const claim = claims[0];
      assert.equal(claim?.state, 'submit');
      assert.equal(claim?.slot, 'provider-a');
      assert.equal(claim?.batch.counts.pending, 2);
      assert.deepEqual(await storage.batches.claimItems('runner', NOW, LEASE, 10), [], 'not the runner’s');
      assert.equal(await storage.batches.upstream.update('up-1', 'not-the-token', { next: NOW }), false);
      const marked = { state: 'submitting' as const, submittingAt: NOW, next: NOW };
      assert.ok(await storage.batches.upstream.update('up-1', claim?.leaseToken as string, marked, false));
      assert.deepEqual(
        await storage.batches.upstream.claim('c', NOW, LEASE, 10),
        [],
        'still leased while it is sent',
      );
      // The instance died mid-send: after the lease another claims it, and sees how far it got.
      const [again] = await storage.batches.upstream.claim('c', NOW + LEASE + 1, LEASE, 10);
      assert.equal(again?.state, 'submitting');
      assert.equal(again?.submittingAt, NOW);
      const polling = {
        state: 'polling' as const,
        upstreamId: 'batch_vendor',
        polls: 0,
        next: NOW + 2 * LEASE,
      };
      assert.ok(await storage.batches.upstream.update('up-1', again?.leaseToken as string, polling));
      assert.deepEqual(
        await storage.batches.upstream.claim('c', NOW + LEASE + 2, LEASE, 10),
        [],
        'not due yet',
      );
      const [due] = await storage.batches.upstream.claim('c', NOW + 2 * LEASE, LEASE, 10);
      assert.equal(due?.upstreamId, 'batch_vendor');
    });

    it('a cancel keeps the items of a batch the vendor has; results are stored once, after their rows', async () => {
      await upstreamBatch(storage, 'up-2', 3);
      const [claim] = await storage.batches.upstream.claim('a', NOW, LEASE, 10);
      const polling = { state: 'polling' as const, upstreamId: 'v2', next: NOW };
      assert.ok(await storage.batches.upstream.update('up-2', claim?.leaseToken as string, polling));
      const cancelled = await storage.batches.cancelBatch('web', 'up-2', NOW);
      assert.equal(cancelled?.status, 'cancelling');
      assert.equal(cancelled?.counts.pending, 3, 'the vendor’s cancel decides');
      const item = await storage.batches.upstream.item('up-2', 'c2');
      assert.equal(item?.ledgerId, 'up-2-row-2');
      const up = storage.batches.upstream;
      assert.equal(await up.complete('up-2', 2, answer, NOW, true), 'unrecorded', 'its row first');
      await storage.usage.appendBatch([sampleRecord('up-2-row-2', { batchId: 'up-2', createdAt: NOW })]);
      assert.equal(await up.complete('up-2', 2, answer, NOW, true), 'done');
      assert.equal(await up.complete('up-2', 2, answer, NOW, true), 'lost', 'once');
      assert.equal(await up.endRest('up-2', 'canceled', null, NOW), 2);
      const counts = (await storage.batches.getBatch('web', 'up-2'))?.counts;
      assert.deepEqual([counts?.succeeded, counts?.canceled, counts?.pending], [1, 2, 0]);
      const items = await up.items('up-2', 1, 10);
      assert.deepEqual(
        items.map((i) => [i.customId, i.state]),
        [
          ['c2', 'succeeded'],
          ['c3', 'canceled'],
        ],
      );
    });

    it('a batch handed back to the gateway is the runner’s; cancelled meanwhile, its items end canceled', async () => {
      await upstreamBatch(storage, 'up-4', 2);
      await upstreamBatch(storage, 'up-5', 1);
      const claims = await storage.batches.upstream.claim('a', NOW, LEASE, 10);
      const token = (id: string) => claims.find((c) => c.batch.id === id)?.leaseToken as string;
      assert.equal(await storage.batches.upstream.unroute('up-4', 'wrong', NOW), false);
      assert.ok(await storage.batches.upstream.unroute('up-4', token('up-4'), NOW));
      const items = await storage.batches.claimItems('runner', NOW, LEASE, 10);
      assert.deepEqual(
        items.filter((i) => i.batchId === 'up-4').map((i) => i.customId),
        ['c1', 'c2'],
      );
      const marked = { state: 'submitting' as const, submittingAt: NOW, next: NOW };
      assert.ok(await storage.batches.upstream.update('up-5', token('up-5'), marked, false));
      await storage.batches.cancelBatch('web', 'up-5', NOW);
      assert.ok(await storage.batches.upstream.unroute('up-5', token('up-5'), NOW));
      assert.equal((await storage.batches.getBatch('web', 'up-5'))?.counts.canceled, 1);
    });

    it('a batch not yet submitted is cancelled here at once', async () => {
      await upstreamBatch(storage, 'up-3', 1);
      const cancelled = await storage.batches.cancelBatch('web', 'up-3', NOW);
      assert.equal(cancelled?.counts.canceled, 1);
    });
  });
}
