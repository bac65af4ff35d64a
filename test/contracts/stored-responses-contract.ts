import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Storage, StoredResponse } from '../../src/storage/ports.ts';

const NOW = 1_800_000_000_000;

function record(app: string, id: string, createdAt = NOW, expiresAt = NOW + 1000): StoredResponse {
  return {
    app,
    id,
    createdAt,
    expiresAt,
    response: JSON.stringify({ id, output: [] }),
    inputItems: JSON.stringify([{ role: 'user', content: `hi ${id}` }]),
  };
}

/** The StoredResponses port (migration 008), the same on every engine. */
export function describeStoredResponsesContract(name: string, open: () => Promise<Storage>): void {
  describe(`${name}: stored responses`, () => {
    let storage: Storage;
    before(async () => {
      storage = await open();
    });
    after(() => storage.close());

    it('keeps a response for its app only, until it expires', async () => {
      await storage.responses.put(record('web', 'resp_a'), 100, NOW);
      const found = await storage.responses.get('web', 'resp_a', NOW);
      assert.deepEqual(found, record('web', 'resp_a'));
      assert.equal(await storage.responses.get('other', 'resp_a', NOW), undefined);
      assert.equal(await storage.responses.get('web', 'resp_a', NOW + 1000), undefined);
    });

    it('a second put of the same id leaves the first', async () => {
      await storage.responses.put(record('web', 'resp_b'), 100, NOW);
      await storage.responses.put({ ...record('web', 'resp_b'), response: '{"changed":true}' }, 100, NOW);
      assert.equal(
        (await storage.responses.get('web', 'resp_b', NOW))?.response,
        record('web', 'resp_b').response,
      );
    });

    it('deletes for its app only', async () => {
      await storage.responses.put(record('web', 'resp_c'), 100, NOW);
      assert.equal(await storage.responses.delete('other', 'resp_c'), false);
      assert.equal(await storage.responses.delete('web', 'resp_c'), true);
      assert.equal(await storage.responses.delete('web', 'resp_c'), false);
      assert.equal(await storage.responses.get('web', 'resp_c', NOW), undefined);
    });

    it("keeps at most maxPerApp of an app's responses, the newest", async () => {
      for (let i = 0; i < 5; i++) await storage.responses.put(record('busy', `resp_n${i}`, NOW + i), 3, NOW);
      const kept = [];
      for (let i = 0; i < 5; i++)
        kept.push((await storage.responses.get('busy', `resp_n${i}`, NOW)) !== undefined);
      assert.deepEqual(kept, [false, false, true, true, true]);
    });

    it('keeps the newest maxPerApp when many puts of one app run at once (each sweeps after its insert)', async () => {
      const puts = Array.from({ length: 40 }, (_, i) =>
        storage.responses.put(record('crowd', `resp_c${String(i).padStart(2, '0')}`, NOW + i), 10, NOW),
      );
      await Promise.all(puts);
      const kept: string[] = [];
      for (let i = 0; i < 40; i++) {
        const id = `resp_c${String(i).padStart(2, '0')}`;
        if ((await storage.responses.get('crowd', id, NOW)) !== undefined) kept.push(id);
      }
      assert.deepEqual(
        kept,
        Array.from({ length: 10 }, (_, i) => `resp_c${30 + i}`),
      );
    });
  });
}
