import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { sampleSignup } from '../../../test/contracts/subscriber-contract.ts';
import { createTestSchema } from '../../../test/helpers/postgres.ts';
import type { OutboxEntry, Storage } from '../ports.ts';
import { openPostgresStorage } from './pg-storage.ts';

const MINUTE = 60_000;

/**
 * Two gateway instances on one database: each store below has its own pool, so their
 * transactions really run side by side and only PostgreSQL's locks keep them apart.
 */
describe('PostgreSQL subscriber store shared by two instances', () => {
  let schema: Awaited<ReturnType<typeof createTestSchema>>;
  let stores: [Storage, Storage];
  let db: pg.Client;
  const instance = (i: number): Storage => stores[i % 2] as Storage;

  before(async () => {
    schema = await createTestSchema();
    stores = await Promise.all([openPostgresStorage(schema.url), openPostgresStorage(schema.url)]);
    db = new pg.Client({ connectionString: schema.url });
    await db.connect();
  });
  after(async () => {
    await db.end();
    await Promise.all(stores.map((s) => s.close()));
    await schema.drop();
  });

  const count = async (sql: string, values: unknown[]) =>
    Number((await db.query<{ n: string }>(sql, values)).rows[0]?.n);

  it('10 simultaneous signups of one new address create one subscriber; the others see it', async () => {
    const email = 'race@example.com';
    // Each request carries its own random tokens in real life; distinct hashes here too.
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        instance(i).subscribers.signUp(
          sampleSignup(email, 1_000, {
            enqueue: true,
            confirmTokenHash: `confirm-${i}`,
            unsubscribeTokenHash: `unsubscribe-${i}`,
          }),
        ),
      ),
    );

    const outcomes = results.map((r) => r.outcome).sort();
    assert.deepEqual(outcomes, ['created', ...Array<string>(9).fill('unchanged')]);
    const created = results.find((r) => r.outcome === 'created');
    assert.ok(created);
    assert.equal(results.filter((r) => r.confirmationDue).length, 1, 'one confirmation mail');
    assert.equal(results.filter((r) => r.enqueued).length, 1, 'one outbox entry');
    for (const result of results) assert.equal(result.subscriber.id, created.subscriber.id);

    assert.equal(
      await count('SELECT COUNT(*) AS n FROM newsletter_subscribers WHERE email = $1', [email]),
      1,
    );
    assert.deepEqual(await instance(1).subscribers.findSubscriber(email), created.subscriber);
    // The stored tokens are the winner's, both of them: its mail is the one that goes out.
    const winner = created.subscriber.confirmTokenHash?.replace('confirm-', '');
    const tokens = await db.query<{ token_hash: string }>(
      'SELECT token_hash FROM newsletter_unsubscribe_tokens WHERE subscriber_id = $1',
      [created.subscriber.id],
    );
    assert.deepEqual(
      tokens.rows.map((r) => r.token_hash),
      [`unsubscribe-${winner}`],
    );
    const outbox = await instance(0).subscribers.listOutbox({ limit: 100 });
    assert.deepEqual(
      outbox.filter((e) => e.email === email).map((e) => [e.sequence, e.subscriberStatus]),
      [[1, 'pending']],
    );
  });

  it('simultaneous changes of one subscriber queue a gapless sequence that alternates status', async () => {
    const email = 'flip@example.com';
    const first = sampleSignup(email, 0, { enqueue: true });
    await instance(0).subscribers.signUp(first);
    await instance(1).subscribers.confirm(first.confirmTokenHash, 1, true);

    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2 === 0
          ? instance(i).subscribers.unsubscribe(first.unsubscribeTokenHash, 10 + i, true)
          : instance(i).subscribers.signUp(
              sampleSignup(email, 10 + i, {
                doubleOptIn: false,
                enqueue: true,
                confirmTokenHash: `flip-confirm-${i}`,
                unsubscribeTokenHash: `flip-unsubscribe-${i}`,
              }),
            ),
      ),
    );

    const changes = results.filter((r) => r.enqueued).length;
    assert.ok(changes >= 1, 'the first unsubscribe at least changes the status');
    const entries = (await instance(0).subscribers.listOutbox({ limit: 100 }))
      .filter((e) => e.email === email)
      .sort((x, y) => x.sequence - y.sequence);
    assert.deepEqual(
      entries.map((e) => e.sequence),
      Array.from({ length: 2 + changes }, (_, i) => i + 1),
    );
    // Every entry records a real change, so consecutive statuses differ once confirmed.
    for (let i = 2; i < entries.length; i++) {
      assert.notEqual(entries[i]?.subscriberStatus, entries[i - 1]?.subscriberStatus, `entry ${i + 1}`);
    }
    const final = await instance(1).subscribers.findSubscriber(email);
    assert.equal(entries.at(-1)?.subscriberStatus, final?.status);
  });

  it('two instances claiming at the same time never get the same entry, nor one queued behind a pending one', async () => {
    // Fresh addresses, each with one or two changes queued (the earlier tests' are delivered first).
    const now = 1_000 * MINUTE;
    const leftover = await instance(0).subscribers.listOutbox({ state: 'pending', limit: 1_000 });
    for (const entry of leftover) await instance(0).subscribers.markOutboxDelivered(entry.id, now);
    for (let i = 0; i < 40; i++) {
      const signup = sampleSignup(`claim-${i}@example.com`, now - 10 * MINUTE + i, {
        enqueue: true,
        doubleOptIn: i % 2 === 0,
      });
      await instance(i).subscribers.signUp(signup);
      if (signup.doubleOptIn)
        await instance(i).subscribers.confirm(signup.confirmTokenHash, now - MINUTE, true);
    }
    const queued = await instance(0).subscribers.listOutbox({ state: 'pending', limit: 1_000 });
    assert.equal(queued.length, 60);
    const bySequence = (sequence: number) =>
      queued
        .filter((e) => e.sequence === sequence)
        .map((e) => e.id)
        .sort();

    const drain = async (store: Storage): Promise<OutboxEntry[]> => {
      const claimed: OutboxEntry[] = [];
      for (;;) {
        const batch = await store.subscribers.claimOutbox(now, 3, MINUTE);
        if (batch.length === 0) return claimed;
        claimed.push(...batch);
      }
    };
    const claimRound = async () => {
      const [a, b] = await Promise.all([drain(stores[0]), drain(stores[1])]);
      const ids = [...a, ...b].map((e) => e.id).sort();
      assert.equal(new Set(ids).size, ids.length, 'an entry was handed to both instances');
      return [...a, ...b];
    };

    const firstRound = await claimRound();
    assert.deepEqual(firstRound.map((e) => e.id).sort(), bySequence(1), 'only first-in-line changes');
    for (const entry of firstRound) await instance(0).subscribers.markOutboxDelivered(entry.id, now);

    const secondRound = await claimRound();
    assert.deepEqual(secondRound.map((e) => e.id).sort(), bySequence(2));
    for (const entry of secondRound) assert.equal(entry.nextAttemptAt, now + MINUTE, 'leased');
  });
});
