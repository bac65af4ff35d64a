import type { OutboxEntry, OutboxStatus, SubscriberRecord, SubscriberStatus } from './ports.ts';

/**
 * Rows of newsletter_subscribers and newsletter_outbox as SQL engines return them (BIGINT may
 * come back as a string), and the column orders every engine writes them in.
 */
export interface SubscriberRow {
  id: string;
  email: string;
  status: string;
  created_at: number | string;
  updated_at: number | string;
  consent_at: number | string;
  consent_source: string;
  consent_ip_hash: string | null;
  consent_user_agent: string | null;
  confirmed_at: number | string | null;
  unsubscribed_at: number | string | null;
  confirm_token_hash: string | null;
  confirm_expires_at: number | string | null;
  confirm_sent_at: number | string | null;
}

export const SUBSCRIBER_COLUMNS = [
  'id',
  'email',
  'status',
  'created_at',
  'updated_at',
  'consent_at',
  'consent_source',
  'consent_ip_hash',
  'consent_user_agent',
  'confirmed_at',
  'unsubscribed_at',
  'confirm_token_hash',
  'confirm_expires_at',
  'confirm_sent_at',
] as const;

export function subscriberValues(record: SubscriberRecord): (string | number | null)[] {
  return [
    record.id,
    record.email,
    record.status,
    record.createdAt,
    record.updatedAt,
    record.consent.at,
    record.consent.source,
    record.consent.ipHash,
    record.consent.userAgent,
    record.confirmedAt,
    record.unsubscribedAt,
    record.confirmTokenHash,
    record.confirmExpiresAt,
    record.confirmSentAt,
  ];
}

function nullableNumber(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}

export function toSubscriberRecord(row: SubscriberRow): SubscriberRecord {
  return {
    id: row.id,
    email: row.email,
    status: row.status as SubscriberStatus,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    consent: {
      at: Number(row.consent_at),
      source: row.consent_source,
      ipHash: row.consent_ip_hash,
      userAgent: row.consent_user_agent,
    },
    confirmedAt: nullableNumber(row.confirmed_at),
    unsubscribedAt: nullableNumber(row.unsubscribed_at),
    confirmTokenHash: row.confirm_token_hash,
    confirmExpiresAt: nullableNumber(row.confirm_expires_at),
    confirmSentAt: nullableNumber(row.confirm_sent_at),
  };
}

export interface OutboxRow {
  id: string;
  subscriber_id: string;
  seq: number | string;
  email: string;
  subscriber_status: string;
  subscribed_at: number | string;
  state: string;
  attempts: number | string;
  next_attempt_at: number | string;
  last_error: string | null;
  created_at: number | string;
  updated_at: number | string;
  delivered_at: number | string | null;
}

export const OUTBOX_COLUMNS = [
  'id',
  'subscriber_id',
  'seq',
  'email',
  'subscriber_status',
  'subscribed_at',
  'state',
  'attempts',
  'next_attempt_at',
  'last_error',
  'created_at',
  'updated_at',
  'delivered_at',
] as const;

export function outboxValues(entry: OutboxEntry): (string | number | null)[] {
  return [
    entry.id,
    entry.subscriberId,
    entry.sequence,
    entry.email,
    entry.subscriberStatus,
    entry.subscribedAt,
    entry.state,
    entry.attempts,
    entry.nextAttemptAt,
    entry.lastError,
    entry.createdAt,
    entry.updatedAt,
    entry.deliveredAt,
  ];
}

export function toOutboxEntry(row: OutboxRow): OutboxEntry {
  return {
    id: row.id,
    subscriberId: row.subscriber_id,
    sequence: Number(row.seq),
    email: row.email,
    subscriberStatus: row.subscriber_status as SubscriberStatus,
    subscribedAt: Number(row.subscribed_at),
    state: row.state as OutboxStatus,
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    lastError: row.last_error,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    deliveredAt: nullableNumber(row.delivered_at),
  };
}

/**
 * Due pending entries whose subscriber has no earlier pending entry, oldest first. The parameters
 * are (now, limit); `placeholder` spells the n-th one in the engine's syntax (`?`, `$n`).
 */
export function dueOutboxSql(placeholder: (position: number) => string): string {
  return `SELECT * FROM newsletter_outbox o
  WHERE o.state = 'pending' AND o.next_attempt_at <= ${placeholder(1)}
    AND NOT EXISTS (SELECT 1 FROM newsletter_outbox p
      WHERE p.subscriber_id = o.subscriber_id AND p.state = 'pending' AND p.seq < o.seq)
  ORDER BY o.created_at, o.subscriber_id, o.seq
  LIMIT ${placeholder(2)}`;
}

/** The due-entries query with `?` placeholders, as SQLite takes it. */
export const DUE_OUTBOX_SQL = dueOutboxSql(() => '?');
