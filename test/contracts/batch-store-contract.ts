import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BatchFileRecord, ClaimedItem, NewBatch } from '../../src/storage/batch-store.ts';
import type { Storage } from '../../src/storage/ports.ts';
import { sampleRecord } from './storage-contract.ts';

const NOW = 1_800_000_000_000;
const DAY = 86_400_000;

function file(id: string, app = 'web'): BatchFileRecord {
  return {
    id,
    app,
    purpose: 'batch',
    filename: 'in.jsonl',
    bytes: 0,
    lines: 0,
    status: 'uploading',
    batchId: null,
    createdAt: NOW,
    expiresAt: NOW + 30 * DAY,
  };
}

function batch(id: string, total: number, app = 'web'): NewBatch {
  return {
    id,
    app,
    flavor: 'openai',
    endpoint: '/v1/chat/completions',
    inputFileId: null,
    completionWindow: '24h',
    metadata: { run: 'nightly' },
    total,
    createdAt: NOW,
    expiresAt: NOW + DAY,
  };
}

async function startedBatch(storage: Storage, id: string, total: number, createdAt = NOW): Promise<void> {
  await storage.batches.createBatch({ ...batch(id, total), createdAt });
  const items = Array.from({ length: total }, (_, i) => ({
    line: i + 1,
    customId: `c${i + 1}`,
    ledgerId: `${id}-row-${i + 1}`,
    body: JSON.stringify({ model: 'm', messages: [] }),
  }));
  await storage.batches.addItems(id, items);
  await storage.batches.startBatch(id, NOW);
}

const ok = (n: number) => ({
  state: 'succeeded' as const,
  statusCode: 200,
  requestId: `r${n}`,
  response: '{}',
});

/** The BatchStore port (migration 010), the same on every engine. */
export function describeBatchStoreContract(name: string, open: () => Promise<Storage>): void {
  describe(`${name}: batches and files`, () => {
    let storage: Storage;
    before(async () => {
      storage = await open();
    });
    after(() => storage.close());

    it("keeps a file's bytes in order, found only by its app once processed and until it expires", async () => {
      const store = storage.batches;
      await store.createFile(file('file-a'));
      assert.equal(await store.findFile('web', 'file-a', NOW), undefined, 'not while uploading');
      await store.appendChunk('file-a', 0, new TextEncoder().encode('{"a":1}\n'));
      await store.appendChunk('file-a', 1, new TextEncoder().encode('{"b":2}\n'));
      await store.finishFile('file-a', 16, 2);
      assert.equal((await store.findFile('web', 'file-a', NOW))?.lines, 2);
      assert.equal(await store.findFile('other', 'file-a', NOW), undefined);
      assert.equal(await store.findFile('web', 'file-a', NOW + 30 * DAY), undefined);
      const chunks = await store.readChunks('file-a', 1, 10);
      assert.deepEqual(
        chunks.map((chunk) => Buffer.from(chunk).toString()),
        ['{"b":2}\n'],
      );
      assert.equal(await store.deleteFile('other', 'file-a'), false);
      assert.equal(await store.deleteFile('web', 'file-a'), true);
      assert.equal((await store.readChunks('file-a', 0, 10)).length, 0);
    });

    it('hands every item out once to claims made at the same moment', async () => {
      await startedBatch(storage, 'batch_claims', 60);
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, i) => storage.batches.claimItems(`owner${i}`, NOW, 60_000, 15)),
      );
      const lines = claims.flat().map((item) => `${item.batchId}/${item.line}`);
      assert.equal(lines.length, 60);
      assert.equal(new Set(lines).size, 60);
      assert.deepEqual(await storage.batches.claimItems('late', NOW, 60_000, 10), []);
      const got = await storage.batches.getBatch('web', 'batch_claims');
      assert.equal(got?.counts.running, 60);
      assert.deepEqual(got?.metadata, { run: 'nightly' });
    });

    it('claims again an item whose lease ran out, and the first claim can no longer complete it', async () => {
      await startedBatch(storage, 'batch_lease', 1);
      const [first] = (await storage.batches.claimItems('dead', NOW, 1000, 10)).filter(
        (item) => item.batchId === 'batch_lease',
      );
      assert.ok(first);
      const [second] = (await storage.batches.claimItems('alive', NOW + 1001, 1000, 10)).filter(
        (item) => item.batchId === 'batch_lease',
      );
      assert.equal(second?.line, first.line);
      assert.equal(second?.tries, 2);
      assert.equal(await storage.batches.completeItem(first, ok(1), NOW, false), 'lost');
      assert.equal(await storage.batches.completeItem(second as ClaimedItem, ok(1), NOW, false), 'done');
      assert.equal(await storage.batches.completeItem(second as ClaimedItem, ok(1), NOW, false), 'lost');
    });

    it('stores a result only once its ledger row is stored, when asked to', async () => {
      await startedBatch(storage, 'batch_ledger', 1);
      const [item] = (await storage.batches.claimItems('me', NOW, 60_000, 100)).filter(
        (claimed) => claimed.batchId === 'batch_ledger',
      );
      assert.ok(item);
      assert.equal(await storage.batches.completeItem(item, ok(1), NOW, true), 'unrecorded');
      await storage.usage.appendBatch([sampleRecord(item.ledgerId, { batchId: 'batch_ledger' })]);
      assert.equal(await storage.batches.completeItem(item, ok(1), NOW, true), 'done');
      const [row] = await storage.usage
        .readRecords({ app: 'web', limit: 1000, from: 0 })
        .then((rows) => rows.filter((r) => r.id === item.ledgerId));
      assert.equal(row?.batchId, 'batch_ledger');
      const [result] = await storage.batches.readResults('batch_ledger', 0, 10);
      assert.equal(result?.state, 'succeeded');
      assert.equal(result?.requestId, 'r1');
    });

    it('gives a deferred item back at its time only', async () => {
      await startedBatch(storage, 'batch_defer', 1);
      const mine = (items: ClaimedItem[]) => items.filter((item) => item.batchId === 'batch_defer');
      const [item] = mine(await storage.batches.claimItems('me', NOW, 60_000, 100));
      assert.ok(item);
      await storage.batches.deferItem(item, NOW + 5000);
      assert.equal(mine(await storage.batches.claimItems('me', NOW + 4999, 60_000, 100)).length, 0);
      assert.equal(mine(await storage.batches.claimItems('me', NOW + 5000, 60_000, 100)).length, 1);
    });

    it('cancels the pending items and closes the batch once', async () => {
      // Made earliest, so its first item is the next claimed.
      await startedBatch(storage, 'batch_cancel', 3, NOW - 1);
      const [running] = await storage.batches.claimItems('me', NOW, 60_000, 1);
      assert.equal(running?.batchId, 'batch_cancel');
      assert.ok(running);
      assert.equal(await storage.batches.cancelBatch('other', 'batch_cancel', NOW), undefined);
      const cancelling = await storage.batches.cancelBatch('web', 'batch_cancel', NOW);
      assert.equal(cancelling?.status, 'cancelling');
      assert.equal(cancelling?.counts.canceled, 2);
      const open = async () => (await storage.batches.batchesToClose(NOW, 100)).map((b) => b.id);
      assert.ok(!(await open()).includes('batch_cancel'), 'a live lease holds it open');
      assert.equal(await storage.batches.completeItem(running, ok(1), NOW, false), 'done');
      assert.ok((await open()).includes('batch_cancel'));
      const close = { status: 'cancelled' as const, output: null, error: null };
      assert.equal(await storage.batches.closeBatch('batch_cancel', close, NOW), true);
      assert.equal(await storage.batches.closeBatch('batch_cancel', close, NOW), false);
      const closed = await storage.batches.getBatch('web', 'batch_cancel');
      assert.equal(closed?.status, 'cancelled');
      assert.deepEqual([closed?.counts.succeeded, closed?.counts.canceled], [1, 2]);
    });

    it('offers a batch past its expiry for closing; what never ran ends expired', async () => {
      await startedBatch(storage, 'batch_expiry', 2, NOW - 2);
      const toClose = async (at: number) => (await storage.batches.batchesToClose(at, 100)).map((b) => b.id);
      assert.ok(!(await toClose(NOW)).includes('batch_expiry'), 'pending work holds it open');
      assert.ok((await toClose(NOW + DAY)).includes('batch_expiry'));
      const close = { status: 'expired' as const, output: null, error: null };
      assert.equal(await storage.batches.closeBatch('batch_expiry', close, NOW + DAY), true);
      const expired = await storage.batches.getBatch('web', 'batch_expiry');
      assert.deepEqual(
        [expired?.status, expired?.counts.expired, expired?.expiredAt],
        ['expired', 2, NOW + DAY],
      );
    });

    it('deletes files past their expiry, and batches with their items past the retention', async () => {
      await storage.batches.createFile({
        ...file('file-old', 'sweeper'),
        status: 'processed',
        expiresAt: NOW + 10,
      });
      await storage.batches.appendChunk('file-old', 0, new TextEncoder().encode('x'));
      await storage.batches.createBatch({ ...batch('batch_old', 1, 'sweeper'), createdAt: NOW - 40 * DAY });
      await storage.batches.addItems('batch_old', [
        { line: 1, customId: 'a', ledgerId: 'old-row', body: '{}' },
      ]);
      const gone = await storage.batches.deleteExpired(NOW + 10, 30 * DAY);
      assert.ok(gone >= 2);
      assert.equal(await storage.batches.findFile('sweeper', 'file-old', NOW), undefined);
      assert.equal((await storage.batches.readChunks('file-old', 0, 10)).length, 0);
      assert.equal(await storage.batches.getBatch('sweeper', 'batch_old'), undefined);
      assert.deepEqual(await storage.batches.readResults('batch_old', 0, 10), []);
    });

    it("lists an app's batches newest first, paged after an id", async () => {
      for (const [i, id] of ['batch_l1', 'batch_l2', 'batch_l3'].entries())
        await storage.batches.createBatch({ ...batch(id, 0, 'lister'), createdAt: NOW + i });
      const first = await storage.batches.listBatches('lister', 'openai', 2);
      assert.deepEqual(
        first.map((b) => b.id),
        ['batch_l3', 'batch_l2'],
      );
      const next = await storage.batches.listBatches('lister', 'openai', 2, 'batch_l2');
      assert.deepEqual(
        next.map((b) => b.id),
        ['batch_l1'],
      );
      assert.deepEqual(await storage.batches.listBatches('lister', 'anthropic', 2), []);
    });
  });
}
