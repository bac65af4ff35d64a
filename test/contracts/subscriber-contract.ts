import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SignupRequest, Storage } from '../../src/storage/ports.ts';

const MINUTE = 60_000;
const WEEK = 7 * 24 * 60 * MINUTE;

/** A double opt-in signup at `at`, with token hashes derived from the address and time. */
export function sampleSignup(
  email: string,
  at: number,
  overrides: Partial<SignupRequest> = {},
): SignupRequest {
  return {
    email,
    consent: { at, source: 'api', ipHash: 'ip-hash', userAgent: 'test-agent/1.0' },
    doubleOptIn: true,
    confirmTokenHash: `confirm:${email}:${at}`,
    confirmExpiresAt: at + WEEK,
    resendAfterMs: MINUTE,
    unsubscribeTokenHash: `unsubscribe:${email}:${at}`,
    enqueue: false,
    ...overrides,
  };
}

/** The subscriber and outbox behaviour every Storage implementation must show, through the port only. */
export function describeSubscriberContract(name: string, open: () => Promise<Storage>): void {
  describe(`subscriber store contract: ${name}`, () => {
    let storage: Storage;
    before(async () => {
      storage = await open();
    });
    after(() => storage.close());

    it('signs a new address up as pending, with its consent, and its confirm token subscribes it', async () => {
      const request = sampleSignup('Ann@example.com', 1_000);
      const created = await storage.subscribers.signUp(request);
      assert.equal(created.outcome, 'created');
      assert.equal(created.confirmationDue, true);
      assert.equal(created.enqueued, false);
      assert.equal(created.subscriber.status, 'pending');
      assert.deepEqual(created.subscriber.consent, request.consent);
      assert.equal(created.subscriber.confirmTokenHash, request.confirmTokenHash);
      assert.equal(created.subscriber.confirmExpiresAt, 1_000 + WEEK);
      assert.deepEqual(await storage.subscribers.findSubscriber('Ann@example.com'), created.subscriber);
      assert.equal(await storage.subscribers.findSubscriber('ann@example.com'), undefined, 'keyed exactly');

      const confirmed = await storage.subscribers.confirm(request.confirmTokenHash, 2_000, false);
      assert.equal(confirmed.outcome, 'confirmed');
      assert.equal(confirmed.subscriber?.status, 'subscribed');
      assert.equal(confirmed.subscriber?.confirmedAt, 2_000);
      assert.equal(confirmed.subscriber?.id, created.subscriber.id);

      const again = await storage.subscribers.confirm(request.confirmTokenHash, 3_000, false);
      assert.equal(again.outcome, 'already_confirmed');
      assert.equal(again.subscriber?.confirmedAt, 2_000, 'a repeat changes nothing');
      const unknown = await storage.subscribers.confirm('no-such-hash', 3_000, false);
      assert.deepEqual(unknown, { outcome: 'invalid', subscriber: undefined, enqueued: false });
    });

    it('refuses an expired confirm token and leaves the address pending', async () => {
      const request = sampleSignup('late@example.com', 0);
      await storage.subscribers.signUp(request);
      const expired = await storage.subscribers.confirm(request.confirmTokenHash, WEEK, false);
      assert.equal(expired.outcome, 'expired');
      assert.equal((await storage.subscribers.findSubscriber('late@example.com'))?.status, 'pending');
    });

    it('re-sends to a pending address only after the interval, and the new token replaces the old', async () => {
      const first = sampleSignup('again@example.com', 0);
      await storage.subscribers.signUp(first);
      const soon = await storage.subscribers.signUp(sampleSignup('again@example.com', MINUTE - 1));
      assert.equal(soon.outcome, 'unchanged');
      assert.equal(soon.confirmationDue, false);
      assert.equal(soon.subscriber.confirmTokenHash, first.confirmTokenHash);

      const later = sampleSignup('again@example.com', MINUTE, {
        consent: { at: MINUTE, source: 'footer', ipHash: 'other', userAgent: null },
      });
      const resent = await storage.subscribers.signUp(later);
      assert.equal(resent.outcome, 'resent');
      assert.equal(resent.confirmationDue, true);
      assert.deepEqual(resent.subscriber.consent, later.consent, 'the consent being confirmed is the latest');
      assert.equal(
        (await storage.subscribers.confirm(first.confirmTokenHash, MINUTE, false)).outcome,
        'invalid',
      );
      assert.equal(
        (await storage.subscribers.confirm(later.confirmTokenHash, MINUTE, false)).outcome,
        'confirmed',
      );
    });

    it('leaves a subscribed address alone when it signs up again, consent evidence included', async () => {
      const first = sampleSignup('kept@example.com', 0, { doubleOptIn: false });
      const created = await storage.subscribers.signUp(first);
      assert.equal(created.subscriber.status, 'subscribed');
      assert.equal(created.subscriber.confirmedAt, 0);
      assert.equal(created.confirmationDue, false);
      const again = await storage.subscribers.signUp(
        sampleSignup('kept@example.com', 5 * MINUTE, {
          consent: { at: 5 * MINUTE, source: 'attacker', ipHash: 'x', userAgent: 'x' },
        }),
      );
      assert.equal(again.outcome, 'unchanged');
      assert.equal(again.confirmationDue, false);
      assert.deepEqual(await storage.subscribers.findSubscriber('kept@example.com'), created.subscriber);
    });

    it('subscribes a pending address at once when double opt-in is off', async () => {
      await storage.subscribers.signUp(sampleSignup('switch@example.com', 0));
      const single = await storage.subscribers.signUp(
        sampleSignup('switch@example.com', 10, { doubleOptIn: false }),
      );
      assert.equal(single.outcome, 'subscribed');
      assert.equal(single.subscriber.status, 'subscribed');
      assert.equal(single.subscriber.confirmTokenHash, null);
    });

    it('honours every unsubscribe token mailed, once; the confirm token dies with the subscription', async () => {
      const first = sampleSignup('leave@example.com', 0);
      const second = sampleSignup('leave@example.com', 2 * MINUTE);
      const { subscriber } = await storage.subscribers.signUp(first);
      await storage.subscribers.signUp(second);
      assert.equal(
        (await storage.subscribers.findByUnsubscribeToken(first.unsubscribeTokenHash))?.id,
        subscriber.id,
      );
      assert.equal(
        (await storage.subscribers.findByUnsubscribeToken(second.unsubscribeTokenHash))?.id,
        subscriber.id,
      );
      assert.equal(await storage.subscribers.findByUnsubscribeToken('nope'), undefined);

      const gone = await storage.subscribers.unsubscribe(first.unsubscribeTokenHash, 3 * MINUTE, false);
      assert.equal(gone.outcome, 'unsubscribed');
      assert.equal(gone.subscriber?.status, 'unsubscribed');
      assert.equal(gone.subscriber?.unsubscribedAt, 3 * MINUTE);
      assert.equal(gone.subscriber?.confirmTokenHash, null);
      const twice = await storage.subscribers.unsubscribe(second.unsubscribeTokenHash, 4 * MINUTE, false);
      assert.equal(twice.outcome, 'already_unsubscribed');
      assert.equal(twice.subscriber?.unsubscribedAt, 3 * MINUTE);
      assert.equal(
        (await storage.subscribers.confirm(second.confirmTokenHash, 4 * MINUTE, false)).outcome,
        'invalid',
      );
      assert.equal((await storage.subscribers.unsubscribe('nope', 0, false)).outcome, 'invalid');
    });

    it('re-subscribes an unsubscribed address under the same id; its old unsubscribe links still work', async () => {
      const first = sampleSignup('back@example.com', 0);
      const { subscriber } = await storage.subscribers.signUp(first);
      await storage.subscribers.confirm(first.confirmTokenHash, 1, false);
      await storage.subscribers.unsubscribe(first.unsubscribeTokenHash, MINUTE, false);
      const back = await storage.subscribers.signUp(sampleSignup('back@example.com', 2 * MINUTE));
      assert.equal(back.outcome, 'resubscribed');
      assert.equal(back.confirmationDue, true);
      assert.equal(back.subscriber.id, subscriber.id);
      assert.equal(back.subscriber.status, 'pending');
      assert.equal(back.subscriber.unsubscribedAt, null);
      assert.equal(
        (await storage.subscribers.unsubscribe(first.unsubscribeTokenHash, 3 * MINUTE, false)).outcome,
        'unsubscribed',
      );
    });
  });

  describe(`subscriber outbox contract: ${name}`, () => {
    let storage: Storage;
    before(async () => {
      storage = await open();
    });
    after(() => storage.close());

    it('queues status changes atomically with them, in order per subscriber, and leases what it hands out', async () => {
      const outbox = storage.subscribers;
      const request = sampleSignup('queue@example.com', 1_000, { enqueue: true });
      assert.equal((await outbox.signUp(request)).enqueued, true);
      const resend = await outbox.signUp(sampleSignup('queue@example.com', 2 * MINUTE, { enqueue: true }));
      assert.equal(resend.enqueued, false, 'a re-send is no status change');
      const confirmHash = resend.subscriber.confirmTokenHash ?? '';
      assert.equal((await outbox.confirm(confirmHash, 3 * MINUTE, true)).enqueued, true);
      await outbox.signUp(sampleSignup('quiet@example.com', 1_500, { enqueue: false }));

      const pending = await outbox.listOutbox({ state: 'pending', limit: 10 });
      assert.deepEqual(
        pending.map((e) => [e.email, e.sequence, e.subscriberStatus, e.subscribedAt, e.attempts]),
        [
          ['queue@example.com', 1, 'pending', 1_000, 0],
          ['queue@example.com', 2, 'subscribed', 3 * MINUTE, 0],
        ],
      );
      assert.deepEqual(await outbox.outboxStats(), { pending: 2, failed: 0, oldestPendingAt: 1_000 });

      assert.deepEqual(await outbox.claimOutbox(999, 10, MINUTE), [], 'nothing is due yet');
      const first = await outbox.claimOutbox(10 * MINUTE, 10, MINUTE);
      assert.deepEqual(
        first.map((e) => e.sequence),
        [1],
        'the second change waits for the first',
      );
      assert.deepEqual(await outbox.claimOutbox(10 * MINUTE + 1, 10, MINUTE), [], 'leased');
      await outbox.markOutboxDelivered(first[0]?.id ?? '', 10 * MINUTE + 2);

      const second = await outbox.claimOutbox(10 * MINUTE + 3, 10, MINUTE);
      assert.deepEqual(
        second.map((e) => e.sequence),
        [2],
      );
      const id = second[0]?.id ?? '';
      await outbox.markOutboxAttemptFailed(
        id,
        { attempts: 1, nextAttemptAt: 30 * MINUTE, error: 'HTTP 503' },
        11 * MINUTE,
      );
      assert.deepEqual(await outbox.claimOutbox(29 * MINUTE, 10, MINUTE), [], 'waits for its retry time');
      const retried = await outbox.claimOutbox(30 * MINUTE, 10, MINUTE);
      assert.equal(retried[0]?.attempts, 1);
      assert.equal(retried[0]?.lastError, 'HTTP 503');

      await outbox.markOutboxAttemptFailed(
        id,
        { attempts: 2, nextAttemptAt: null, error: 'HTTP 500' },
        31 * MINUTE,
      );
      assert.deepEqual(await outbox.claimOutbox(99 * MINUTE, 10, MINUTE), [], 'failed for good');
      const failed = await outbox.listOutbox({ state: 'failed', limit: 10 });
      assert.deepEqual(
        failed.map((e) => [e.id, e.attempts, e.lastError]),
        [[id, 2, 'HTTP 500']],
      );
      const delivered = await outbox.listOutbox({ state: 'delivered', limit: 10 });
      assert.equal(delivered[0]?.deliveredAt, 10 * MINUTE + 2);
      assert.deepEqual(await outbox.outboxStats(), { pending: 0, failed: 1, oldestPendingAt: null });
    });

    it('does not let a failed entry hold back the subscriber’s later changes', async () => {
      const outbox = storage.subscribers;
      const request = sampleSignup('later@example.com', 100 * MINUTE, { enqueue: true });
      await outbox.signUp(request);
      const [entry] = await outbox.claimOutbox(100 * MINUTE, 10, MINUTE);
      assert.equal(entry?.email, 'later@example.com');
      await outbox.markOutboxAttemptFailed(
        entry?.id ?? '',
        { attempts: 1, nextAttemptAt: null, error: 'x' },
        100 * MINUTE,
      );
      await outbox.unsubscribe(request.unsubscribeTokenHash, 101 * MINUTE, true);
      const next = await outbox.claimOutbox(101 * MINUTE, 10, MINUTE);
      assert.deepEqual(
        next.map((e) => [e.email, e.sequence, e.subscriberStatus]),
        [['later@example.com', 2, 'unsubscribed']],
      );
    });
  });
}
