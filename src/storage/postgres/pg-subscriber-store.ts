import type pg from 'pg';
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
  dueOutboxSql,
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
  type SignupTransition,
  type Transition,
} from '../subscriber-transitions.ts';
import type { PgConnections } from './pg-connections.ts';
import { inTransaction } from './pg-transaction.ts';

/** The pool's connections (one statement) or a transaction's connection: both run a statement alike. */
interface Queryable {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/** `$1, $2, …, $count`. */
const parameters = (count: number) => Array.from({ length: count }, (_, i) => `$${i + 1}`).join(', ');
const UPDATABLE = SUBSCRIBER_COLUMNS.filter((column) => column !== 'id');

const BY_EMAIL = 'SELECT s.* FROM newsletter_subscribers s WHERE s.email = $1';
const BY_CONFIRM_TOKEN = 'SELECT s.* FROM newsletter_subscribers s WHERE s.confirm_token_hash = $1';
const BY_UNSUBSCRIBE_TOKEN = `SELECT s.* FROM newsletter_subscribers s
  JOIN newsletter_unsubscribe_tokens t ON t.subscriber_id = s.id WHERE t.token_hash = $1`;
// Appended to a lookup inside a transition: only the subscriber row is locked (tokens never change).
const LOCK = ' FOR UPDATE OF s';

const INSERT_SUBSCRIBER = `INSERT INTO newsletter_subscribers (${SUBSCRIBER_COLUMNS.join(', ')})
  VALUES (${parameters(SUBSCRIBER_COLUMNS.length)}) ON CONFLICT (email) DO NOTHING`;
const UPDATE_SUBSCRIBER = `UPDATE newsletter_subscribers
  SET ${UPDATABLE.map((column, i) => `${column} = $${i + 1}`).join(', ')} WHERE id = $${UPDATABLE.length + 1}`;
const INSERT_OUTBOX = `INSERT INTO newsletter_outbox (${OUTBOX_COLUMNS.join(', ')})
  VALUES (${parameters(OUTBOX_COLUMNS.length)})`;
// SKIP LOCKED: a worker passes over the entries another is leasing right now instead of waiting
// for it, and re-checks the rows it does lock, so an entry leased meanwhile is not due any more.
const CLAIM_OUTBOX = `${dueOutboxSql((position) => `$${position}`)} FOR UPDATE OF o SKIP LOCKED`;

/**
 * Subscribers and their outbox in PostgreSQL, shared by every gateway instance. Each change runs
 * in a transaction on one client that first locks the subscriber row, so concurrent changes to one
 * address (from any instance) take turns and its outbox sequence numbers never collide.
 */
export class PgSubscriberStore implements SubscriberStore {
  readonly #pool: PgConnections;

  constructor(pool: PgConnections) {
    this.#pool = pool;
  }

  async signUp(request: SignupRequest): Promise<SignupResult> {
    return inTransaction(this.#pool, async (client) => {
      const plan = await this.#planAndWriteSignup(client, request);
      const enqueued = await this.#enqueue(client, plan, request.enqueue, request.consent.at);
      if (plan.confirmationDue) {
        await client.query(
          'INSERT INTO newsletter_unsubscribe_tokens (token_hash, subscriber_id, created_at) VALUES ($1, $2, $3)',
          [request.unsubscribeTokenHash, plan.record.id, request.consent.at],
        );
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
    return inTransaction(this.#pool, async (client) => {
      const plan = planConfirm(await this.#find(client, BY_CONFIRM_TOKEN + LOCK, tokenHash), at);
      await this.#write(client, plan);
      const enqueued = await this.#enqueue(client, plan, enqueue, at);
      return { outcome: plan.outcome, subscriber: plan.record, enqueued };
    });
  }

  async unsubscribe(
    tokenHash: string,
    at: number,
    enqueue: boolean,
  ): Promise<TokenResult<UnsubscribeOutcome>> {
    return inTransaction(this.#pool, async (client) => {
      const plan = planUnsubscribe(await this.#find(client, BY_UNSUBSCRIBE_TOKEN + LOCK, tokenHash), at);
      await this.#write(client, plan);
      const enqueued = await this.#enqueue(client, plan, enqueue, at);
      return { outcome: plan.outcome, subscriber: plan.record, enqueued };
    });
  }

  async findSubscriber(email: string): Promise<SubscriberRecord | undefined> {
    return this.#find(this.#pool, BY_EMAIL, email);
  }

  async findByUnsubscribeToken(tokenHash: string): Promise<SubscriberRecord | undefined> {
    return this.#find(this.#pool, BY_UNSUBSCRIBE_TOKEN, tokenHash);
  }

  async claimOutbox(now: number, limit: number, leaseMs: number): Promise<OutboxEntry[]> {
    return inTransaction(this.#pool, async (client) => {
      const { rows } = await client.query<OutboxRow>(CLAIM_OUTBOX, [now, limit]);
      if (rows.length === 0) return [];
      const leasedUntil = now + leaseMs;
      await client.query('UPDATE newsletter_outbox SET next_attempt_at = $1 WHERE id = ANY($2)', [
        leasedUntil,
        rows.map((row) => row.id),
      ]);
      return rows.map((row) => ({ ...toOutboxEntry(row), nextAttemptAt: leasedUntil }));
    });
  }

  async markOutboxDelivered(id: string, at: number): Promise<void> {
    await this.#pool.query(
      "UPDATE newsletter_outbox SET state = 'delivered', delivered_at = $1, updated_at = $1, last_error = NULL WHERE id = $2",
      [at, id],
    );
  }

  async markOutboxAttemptFailed(
    id: string,
    failure: { attempts: number; nextAttemptAt: number | null; error: string },
    at: number,
  ): Promise<void> {
    const state: OutboxStatus = failure.nextAttemptAt === null ? 'failed' : 'pending';
    await this.#pool.query(
      `UPDATE newsletter_outbox SET state = $1, attempts = $2, next_attempt_at = $3, last_error = $4, updated_at = $5
        WHERE id = $6`,
      [state, failure.attempts, failure.nextAttemptAt ?? at, failure.error, at, id],
    );
  }

  async outboxStats(): Promise<OutboxStats> {
    // COUNT is BIGINT and MIN of a BIGINT column too: both arrive as strings.
    const { rows } = await this.#pool.query<{
      pending: string;
      failed: string;
      oldest_pending_at: string | null;
    }>(
      `SELECT
         COUNT(*) FILTER (WHERE state = 'pending') AS pending,
         COUNT(*) FILTER (WHERE state = 'failed') AS failed,
         MIN(created_at) FILTER (WHERE state = 'pending') AS oldest_pending_at
       FROM newsletter_outbox`,
    );
    const oldest = rows[0]?.oldest_pending_at ?? null;
    return {
      pending: Number(rows[0]?.pending ?? 0),
      failed: Number(rows[0]?.failed ?? 0),
      oldestPendingAt: oldest === null ? null : Number(oldest),
    };
  }

  async listOutbox(query: { state?: OutboxStatus; limit: number }): Promise<OutboxEntry[]> {
    const { rows } =
      query.state === undefined
        ? await this.#pool.query<OutboxRow>(
            'SELECT * FROM newsletter_outbox ORDER BY created_at, subscriber_id, seq LIMIT $1',
            [query.limit],
          )
        : await this.#pool.query<OutboxRow>(
            'SELECT * FROM newsletter_outbox WHERE state = $1 ORDER BY created_at, subscriber_id, seq LIMIT $2',
            [query.state, query.limit],
          );
    return rows.map(toOutboxEntry);
  }

  /**
   * Locks the address's row and plans against it; a new address is inserted. When another
   * instance inserts the same address between our SELECT and INSERT, the INSERT waits for it,
   * does nothing, and the next round finds and locks the row it committed.
   */
  async #planAndWriteSignup(client: pg.PoolClient, request: SignupRequest): Promise<SignupTransition> {
    const id = newId('sub');
    // Rows are never deleted, so the second round always finds the row the first one collided with.
    for (let round = 0; round < 3; round++) {
      const plan = planSignup(await this.#find(client, BY_EMAIL + LOCK, request.email), request, id);
      if (await this.#write(client, plan)) return plan;
    }
    // No address in the message: errors end up in logs.
    throw new Error('signup could neither create nor lock the subscriber row');
  }

  async #find(db: Queryable, sql: string, key: string): Promise<SubscriberRecord | undefined> {
    const { rows } = await db.query<SubscriberRow>(sql, [key]);
    return rows[0] === undefined ? undefined : toSubscriberRecord(rows[0]);
  }

  /** Writes a planned row change. False only when an insert lost to a concurrent one of the same address. */
  async #write(client: pg.PoolClient, plan: Transition<unknown>): Promise<boolean> {
    const record = plan.record;
    if (record === undefined || plan.write === 'none') return true;
    const values = subscriberValues(record);
    if (plan.write === 'insert') return (await client.query(INSERT_SUBSCRIBER, values)).rowCount === 1;
    await client.query(UPDATE_SUBSCRIBER, [...values.slice(1), record.id]);
    return true;
  }

  /** Writes the outbox entry of a written status change, when asked. The row lock is held, so MAX(seq) is ours. */
  async #enqueue(
    client: pg.PoolClient,
    plan: Transition<unknown>,
    enqueue: boolean,
    at: number,
  ): Promise<boolean> {
    const record = plan.record;
    if (record === undefined || plan.write === 'none' || !enqueue || !plan.statusChanged) return false;
    const { rows } = await client.query<{ next: number }>(
      'SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM newsletter_outbox WHERE subscriber_id = $1',
      [record.id],
    );
    await client.query(
      INSERT_OUTBOX,
      outboxValues({
        id: newId('obx'),
        subscriberId: record.id,
        sequence: Number(rows[0]?.next ?? 1),
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
}
