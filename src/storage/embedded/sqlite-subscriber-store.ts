import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { newId } from '../../platform/ids.ts';
import type {
  ConfirmOutcome,
  OutboxEntry,
  OutboxStats,
  OutboxStatus,
  SignupRequest,
  SignupResult,
  SubscriberRecord,
  SubscriberStore,
  TokenResult,
  UnsubscribeOutcome,
} from '../ports.ts';
import {
  DUE_OUTBOX_SQL,
  OUTBOX_COLUMNS,
  type OutboxRow,
  outboxValues,
  SUBSCRIBER_COLUMNS,
  type SubscriberRow,
  subscriberValues,
  toOutboxEntry,
  toSubscriberRecord,
} from '../subscriber-rows.ts';
import {
  deriveSubscribedAt,
  planConfirm,
  planSignup,
  planUnsubscribe,
  type Transition,
} from '../subscriber-transitions.ts';

const placeholders = (count: number) => Array.from({ length: count }, () => '?').join(', ');
const UPDATABLE = SUBSCRIBER_COLUMNS.filter((column) => column !== 'id');

/**
 * Subscribers and their outbox in the embedded database. node:sqlite is synchronous, so each
 * transaction below runs start to finish without yielding; BEGIN IMMEDIATE also keeps another
 * process on the same file (the CLI) from interleaving.
 */
export class SqliteSubscriberStore implements SubscriberStore {
  readonly #db: DatabaseSync;
  readonly #byEmail: StatementSync;
  readonly #byConfirmToken: StatementSync;
  readonly #byUnsubscribeToken: StatementSync;
  readonly #insert: StatementSync;
  readonly #update: StatementSync;
  readonly #insertUnsubscribeToken: StatementSync;
  readonly #nextSequence: StatementSync;
  readonly #insertOutbox: StatementSync;
  readonly #dueOutbox: StatementSync;
  readonly #leaseOutbox: StatementSync;
  readonly #delivered: StatementSync;
  readonly #attemptFailed: StatementSync;
  readonly #stats: StatementSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#byEmail = db.prepare('SELECT * FROM newsletter_subscribers WHERE email = ?');
    this.#byConfirmToken = db.prepare('SELECT * FROM newsletter_subscribers WHERE confirm_token_hash = ?');
    this.#byUnsubscribeToken = db.prepare(
      `SELECT s.* FROM newsletter_subscribers s
        JOIN newsletter_unsubscribe_tokens t ON t.subscriber_id = s.id WHERE t.token_hash = ?`,
    );
    this.#insert = db.prepare(
      `INSERT INTO newsletter_subscribers (${SUBSCRIBER_COLUMNS.join(', ')})
        VALUES (${placeholders(SUBSCRIBER_COLUMNS.length)})`,
    );
    this.#update = db.prepare(
      `UPDATE newsletter_subscribers SET ${UPDATABLE.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`,
    );
    this.#insertUnsubscribeToken = db.prepare(
      'INSERT INTO newsletter_unsubscribe_tokens (token_hash, subscriber_id, created_at) VALUES (?, ?, ?)',
    );
    this.#nextSequence = db.prepare(
      'SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM newsletter_outbox WHERE subscriber_id = ?',
    );
    this.#insertOutbox = db.prepare(
      `INSERT INTO newsletter_outbox (${OUTBOX_COLUMNS.join(', ')}) VALUES (${placeholders(OUTBOX_COLUMNS.length)})`,
    );
    this.#dueOutbox = db.prepare(DUE_OUTBOX_SQL);
    this.#leaseOutbox = db.prepare('UPDATE newsletter_outbox SET next_attempt_at = ? WHERE id = ?');
    this.#delivered = db.prepare(
      "UPDATE newsletter_outbox SET state = 'delivered', delivered_at = ?, updated_at = ?, last_error = NULL WHERE id = ?",
    );
    this.#attemptFailed = db.prepare(
      'UPDATE newsletter_outbox SET state = ?, attempts = ?, next_attempt_at = ?, last_error = ?, updated_at = ? WHERE id = ?',
    );
    this.#stats = db.prepare(
      `SELECT
         SUM(CASE WHEN state = 'pending' THEN 1 ELSE 0 END) AS pending,
         SUM(CASE WHEN state = 'failed' THEN 1 ELSE 0 END) AS failed,
         MIN(CASE WHEN state = 'pending' THEN created_at END) AS oldest_pending_at
       FROM newsletter_outbox`,
    );
  }

  async signUp(request: SignupRequest): Promise<SignupResult> {
    return this.#transaction(() => {
      const existing = this.#find(this.#byEmail, request.email);
      const plan = planSignup(existing, request, newId('sub'));
      const enqueued = this.#apply(plan, request.enqueue, request.consent.at);
      if (plan.confirmationDue) {
        this.#insertUnsubscribeToken.run(request.unsubscribeTokenHash, plan.record.id, request.consent.at);
      }
      return {
        outcome: plan.outcome,
        subscriber: plan.record,
        confirmationDue: plan.confirmationDue,
        enqueued,
      };
    });
  }

  async confirm(tokenHash: string, at: number, enqueue: boolean): Promise<TokenResult<ConfirmOutcome>> {
    return this.#transaction(() => {
      const plan = planConfirm(this.#find(this.#byConfirmToken, tokenHash), at);
      const enqueued = this.#apply(plan, enqueue, at);
      return { outcome: plan.outcome, subscriber: plan.record, enqueued };
    });
  }

  async unsubscribe(
    tokenHash: string,
    at: number,
    enqueue: boolean,
  ): Promise<TokenResult<UnsubscribeOutcome>> {
    return this.#transaction(() => {
      const plan = planUnsubscribe(this.#find(this.#byUnsubscribeToken, tokenHash), at);
      const enqueued = this.#apply(plan, enqueue, at);
      return { outcome: plan.outcome, subscriber: plan.record, enqueued };
    });
  }

  async findSubscriber(email: string): Promise<SubscriberRecord | undefined> {
    return this.#find(this.#byEmail, email);
  }

  async findByUnsubscribeToken(tokenHash: string): Promise<SubscriberRecord | undefined> {
    return this.#find(this.#byUnsubscribeToken, tokenHash);
  }

  async claimOutbox(now: number, limit: number, leaseMs: number): Promise<OutboxEntry[]> {
    return this.#transaction(() => {
      const entries = (this.#dueOutbox.all(now, limit) as unknown as OutboxRow[]).map(toOutboxEntry);
      for (const entry of entries) this.#leaseOutbox.run(now + leaseMs, entry.id);
      return entries.map((entry) => ({ ...entry, nextAttemptAt: now + leaseMs }));
    });
  }

  async markOutboxDelivered(id: string, at: number): Promise<void> {
    this.#delivered.run(at, at, id);
  }

  async markOutboxAttemptFailed(
    id: string,
    failure: { attempts: number; nextAttemptAt: number | null; error: string },
    at: number,
  ): Promise<void> {
    const state: OutboxStatus = failure.nextAttemptAt === null ? 'failed' : 'pending';
    this.#attemptFailed.run(state, failure.attempts, failure.nextAttemptAt ?? at, failure.error, at, id);
  }

  async outboxStats(): Promise<OutboxStats> {
    const row = this.#stats.get() as {
      pending: number | null;
      failed: number | null;
      oldest_pending_at: number | null;
    };
    return {
      pending: Number(row.pending ?? 0),
      failed: Number(row.failed ?? 0),
      oldestPendingAt: row.oldest_pending_at === null ? null : Number(row.oldest_pending_at),
    };
  }

  async listOutbox(query: { state?: OutboxStatus; limit: number }): Promise<OutboxEntry[]> {
    const where = query.state === undefined ? '' : 'WHERE state = ?';
    const params = query.state === undefined ? [query.limit] : [query.state, query.limit];
    const rows = this.#db
      .prepare(`SELECT * FROM newsletter_outbox ${where} ORDER BY created_at, subscriber_id, seq LIMIT ?`)
      .all(...params) as unknown as OutboxRow[];
    return rows.map(toOutboxEntry);
  }

  #find(statement: StatementSync, key: string): SubscriberRecord | undefined {
    const row = statement.get(key) as SubscriberRow | undefined;
    return row === undefined ? undefined : toSubscriberRecord(row);
  }

  /** Writes a planned transition and, when asked and the status changed, its outbox entry. */
  #apply(plan: Transition<unknown>, enqueue: boolean, at: number): boolean {
    const record = plan.record;
    if (record === undefined || plan.write === 'none') return false;
    const values = subscriberValues(record);
    if (plan.write === 'insert') this.#insert.run(...values);
    else this.#update.run(...values.slice(1), record.id);
    if (!enqueue || !plan.statusChanged) return false;
    const { next } = this.#nextSequence.get(record.id) as { next: number };
    this.#insertOutbox.run(
      ...outboxValues({
        id: newId('obx'),
        subscriberId: record.id,
        sequence: Number(next),
        email: record.email,
        subscriberStatus: record.status,
        subscribedAt: deriveSubscribedAt(record),
        state: 'pending',
        attempts: 0,
        nextAttemptAt: at,
        lastError: null,
        createdAt: at,
        updatedAt: at,
        deliveredAt: null,
      }),
    );
    return true;
  }

  #transaction<T>(work: () => T): T {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      this.#db.exec('COMMIT');
      return result;
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }
}
