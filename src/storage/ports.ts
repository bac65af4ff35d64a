import type { BatchStore } from './batch-store.ts';
import type { GovernanceStore } from './governance-ports.ts';
import type { LedgerInsights } from './ledger-insights.ts';

/**
 * Storage ports. Every implementation (embedded SQLite, PostgreSQL) passes the same contract
 * suite, so services never know which one they run on. All methods are async because the
 * server-backed implementations are.
 */

export interface AppRecord {
  name: string;
  /** `keyed$salt$mac` or `scrypt$N$r$p$salt$hash` (platform/secret-hash.ts), never the secret itself. */
  secretHash: string;
  createdAt: number;
  rotatedAt: number | null;
  revokedAt: number | null;
}

export class AppExistsError extends Error {
  constructor(name: string) {
    super(`app '${name}' already exists`);
    this.name = 'AppExistsError';
  }
}

export interface AppStore {
  findApp(name: string): Promise<AppRecord | undefined>;
  listApps(): Promise<AppRecord[]>;
  /** Throws AppExistsError when the name is taken (revoked apps keep their name). */
  createApp(name: string, secretHash: string, at: number): Promise<void>;
  /** Replaces the secret and clears a revocation. Returns false for an unknown app. */
  setSecret(name: string, secretHash: string, at: number): Promise<boolean>;
  /**
   * Stores another hash of the same secret (a migration to a cheaper form), only while the stored
   * hash is still `expected` and the app active: a rotation or revocation made meanwhile wins.
   * Returns whether it replaced it. Not a rotation: `rotatedAt` is left as it was.
   */
  replaceSecretHash(name: string, expected: string, secretHash: string): Promise<boolean>;
  /** Returns false for an unknown or already revoked app. */
  revokeApp(name: string, at: number): Promise<boolean>;
}

/** `mcp_tool`: one tool call through the MCP gateway (CONTRACT 5.7). */
export type Operation = 'chat' | 'chat_stream' | 'embed' | 'json' | 'mcp_tool';

/**
 * Prompt-cache tokens of an answer (CONTRACT 5.3), as the upstream reported them: part of
 * `tokensIn`, priced at their own rates. Zero when none, or when the upstream says nothing.
 */
export interface CacheTokens {
  cacheReadTokens: number;
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
}

/** One upstream call made while serving a request. */
export interface UsageAttempt extends CacheTokens {
  attempt: number;
  provider: string;
  /** The slot's deployment that took the call (CONTRACT 5.6), null for a slot of one. */
  deployment: string | null;
  model: string;
  tokensIn: number;
  tokensOut: number;
  usageEstimated: boolean;
  costUsd: number;
  latencyMs: number;
  /** `ok`, or the error code the attempt ended with. */
  outcome: string;
  upstreamStatus: number | null;
  /**
   * Of `tokensOut`, the reasoning tokens the upstream reported (absent: none reported). Carried to
   * the answer's usage (the Responses door's `reasoning_tokens`); the ledger does not keep it.
   */
  reasoningTokens?: number;
}

/** One served request, successful or not, with every upstream attempt it made. */
export interface UsageRecord extends CacheTokens {
  id: string;
  requestId: string;
  app: string;
  operation: Operation;
  /** The door the request came through: `native`, `openai`, `anthropic`, `responses` or `mcp` (the gateway's FrontDoor). */
  frontDoor: string;
  task: string | null;
  provider: string | null;
  /** The model that answered: the upstream's id (what is priced). */
  model: string | null;
  /**
   * The name the client used, where the slot's `modelMap` sent the upstream another id (CONTRACT
   * 6.4: the ledger keeps both); absent otherwise.
   */
  clientModel?: string | null;
  tokensIn: number;
  tokensOut: number;
  usageEstimated: boolean;
  costUsd: number;
  priceSource: string | null;
  latencyMs: number;
  upstreamFirstByteMs: number | null;
  upstreamMs: number | null;
  status: number;
  errorCode: string | null;
  createdAt: number;
  /** The deployment of the slot that answered (CONTRACT 5.6), null for a slot of one or no answer. */
  deployment: string | null;
  /** Answered from the response cache (CONTRACT 5.5): cost 0, and `costSavedUsd` what it saved. */
  cacheHit: boolean;
  costSavedUsd: number;
  /** For an `mcp_tool` row (CONTRACT 5.7): the upstream MCP server and its tool; null otherwise. */
  mcpServer: string | null;
  mcpTool: string | null;
  /** The person behind the request (CONTRACT 6.5; at most 128 characters, else `sha256:` and a hash). */
  endUser?: string | null;
  /** The app's team when the request was made. */
  team?: string | null;
  /**
   * What guardrails did to the request (CONTRACT 6.6): `guard:phase:action`, comma-separated;
   * null when no guard acted. Never what a guard matched.
   */
  guardrails: string | null;
  /** The batch the request belongs to (CONTRACT 6.7); absent or null for a live request. */
  batchId?: string | null;
  attempts: UsageAttempt[];
}

/**
 * A request admitted and not yet recorded (CONTRACT 6.8): what its row says if the worker serving
 * it dies first (status 500, `worker_lost`), so that every admitted request still has one row.
 */
export type HeldRun = Pick<
  UsageRecord,
  'id' | 'requestId' | 'app' | 'operation' | 'frontDoor' | 'task' | 'createdAt'
>;

export interface UsageQuery {
  app?: string;
  /** Epoch ms, inclusive. */
  from?: number;
  /** Epoch ms, exclusive. */
  to?: number;
  /** Keyset paging: only records after this one in (createdAt, id) order. */
  after?: { createdAt: number; id: string };
  limit: number;
}

/** `tool`: an MCP call's `server__tool` (CONTRACT 5.7), null for other rows; `batch`: the batch id (6.7), null for live rows. */
export type UsageGroup =
  | 'day'
  | 'provider'
  | 'model'
  | 'operation'
  | 'frontDoor'
  | 'deployment'
  | 'tool'
  /** The person behind a request (CONTRACT 6.5), null when none was named. */
  | 'endUser'
  | 'batch';

export interface UsageTotalsQuery {
  app: string;
  /** Epoch ms, inclusive. */
  from: number;
  /** Epoch ms, exclusive. */
  to: number;
  groupBy: readonly UsageGroup[];
}

/** Totals of one group; the grouping fields present are those asked for (`day` is a UTC date). */
export interface UsageTotalsRow {
  day?: string;
  provider?: string | null;
  model?: string | null;
  operation?: string;
  frontDoor?: string;
  deployment?: string | null;
  tool?: string | null;
  endUser?: string | null;
  batch?: string | null;
  requests: number;
  errors: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  /** Prompt-cache reads and writes (5-minute and 1-hour together), part of `tokensIn` (CONTRACT 5.3). */
  tokensInCacheRead: number;
  tokensInCacheWrite: number;
  /** Answers from the response cache, and what they would have cost (CONTRACT 5.5). */
  cacheHits: number;
  costSavedUsd: number;
}

export interface UsageLedger {
  /** Writes a batch atomically: all records and their attempts, or none. A record id already present is skipped. */
  appendBatch(records: readonly UsageRecord[]): Promise<void>;
  /** Records in creation order, with their attempts. */
  readRecords(query: UsageQuery): Promise<UsageRecord[]>;
  /** Sums per group, ordered by the grouping fields. */
  totals(query: UsageTotalsQuery): Promise<UsageTotalsRow[]>;
  /** Deletes records (and their attempts) created before `cutoff`; returns how many records went. */
  deleteBefore(cutoff: number): Promise<number>;
}

/**
 * Dashboard sessions that were signed out before they expired, shared by every instance on the
 * database. A session is named by its nonce; its expiry bounds how long the row is needed.
 */
export interface SessionRevocations {
  /**
   * Records the sign-out; revoking a nonce already revoked is no error (two instances may sign the
   * same session out at once). Deletes, in passing, the revocations of sessions expired by `now`.
   */
  revoke(nonce: string, expiresAt: number, now: number): Promise<void>;
  isRevoked(nonce: string): Promise<boolean>;
}

/** A Response kept for its app (CONTRACT 5.4, migration 008): both texts are JSON. */
export interface StoredResponse {
  app: string;
  id: string;
  /** Epoch ms. */
  createdAt: number;
  expiresAt: number;
  /** The Response object. */
  response: string;
  /** The input items it answered, the conversation before it included. */
  inputItems: string;
}

/**
 * Responses kept for the app that asked (`store: true`), each found only by its own app and only
 * until it expires. Every write also deletes, in passing, a bounded number of expired rows and
 * the app's rows beyond `maxPerApp` (oldest first), so the table is bounded without a sweeper.
 */
export interface StoredResponses {
  /** Keeps one; an id already kept for the app is left as it is. */
  put(record: StoredResponse, maxPerApp: number, now: number): Promise<void>;
  /** The app's unexpired response of that id, or undefined. */
  get(app: string, id: string, now: number): Promise<StoredResponse | undefined>;
  /** Whether the app had one of that id (now gone). */
  delete(app: string, id: string): Promise<boolean>;
}

export interface Storage {
  apps: AppStore;
  /** Teams, apps' settings and keys, team tokens, the audit log (CONTRACT 6.5). */
  governance: GovernanceStore;
  /** Responses API answers kept with `store: true`. */
  responses: StoredResponses;
  usage: UsageLedger;
  /** The ledger's rollups, for every app at once (admin API and dashboard). */
  insights: LedgerInsights;
  subscribers: SubscriberStore;
  sessionRevocations: SessionRevocations;
  /** Files, batches and their requests (CONTRACT 6.7). */
  batches: BatchStore;
  /** Cheap liveness check for health reports. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Newsletter subscribers (surface B) and the outbox of changes for the mailing-list upstream.

export type SubscriberStatus = 'pending' | 'subscribed' | 'unsubscribed';

/** Evidence of the consent behind a subscription: when, through what, and from whom (pseudonymised). */
export interface ConsentEvidence {
  at: number;
  /** Where the signup came from: `api`, or the form's `source`. */
  source: string;
  /** Keyed hash of the client address, never the address itself. */
  ipHash: string | null;
  /** The client's User-Agent, truncated. */
  userAgent: string | null;
}

export interface SubscriberRecord {
  id: string;
  /** The normalised address (trimmed, domain lower-cased); unique. */
  email: string;
  status: SubscriberStatus;
  createdAt: number;
  updatedAt: number;
  /** The consent of the latest signup that changed the subscription. */
  consent: ConsentEvidence;
  confirmedAt: number | null;
  unsubscribedAt: number | null;
  /** SHA-256 of the current confirm token (the token itself only ever travels in the mail). */
  confirmTokenHash: string | null;
  confirmExpiresAt: number | null;
  /** When the last confirmation mail was asked for; re-sends to one address are throttled by it. */
  confirmSentAt: number | null;
}

export interface SignupRequest {
  /** Already normalised. */
  email: string;
  /** `consent.at` is the time of the signup. */
  consent: ConsentEvidence;
  /** True: the address stays pending until its confirm link is used. False: subscribed at once. */
  doubleOptIn: boolean;
  /** With double opt-in: the new confirm token, stored when a confirmation mail is due. */
  confirmTokenHash: string;
  confirmExpiresAt: number;
  /** A pending address gets another confirmation mail only once the last one is this old. */
  resendAfterMs: number;
  /** A fresh unsubscribe token for the mail about to be sent; stored when a confirmation mail is due. */
  unsubscribeTokenHash: string;
  /** Write an outbox entry, in the same transaction, when the status changes. */
  enqueue: boolean;
}

/**
 * `created`: a new address; `resubscribed`: an unsubscribed one signed up again; `resent`: a
 * pending one gets a new confirm token; `subscribed`: a pending one is subscribed because double
 * opt-in is off now; `unchanged`: already subscribed, or a re-send was throttled.
 */
export type SignupOutcome = 'created' | 'resubscribed' | 'resent' | 'subscribed' | 'unchanged';

export interface SignupResult {
  outcome: SignupOutcome;
  subscriber: SubscriberRecord;
  /** A confirmation mail carrying the request's confirm and unsubscribe tokens must be sent. */
  confirmationDue: boolean;
  /** An outbox entry was written. */
  enqueued: boolean;
}

export type ConfirmOutcome = 'confirmed' | 'already_confirmed' | 'expired' | 'invalid';
export type UnsubscribeOutcome = 'unsubscribed' | 'already_unsubscribed' | 'invalid';

export interface TokenResult<Outcome> {
  outcome: Outcome;
  /** The subscriber the token belongs to; undefined for an unknown token. */
  subscriber: SubscriberRecord | undefined;
  enqueued: boolean;
}

export type OutboxStatus = 'pending' | 'delivered' | 'failed';

/** One subscription change waiting for (or done with) delivery to the mailing-list upstream. */
export interface OutboxEntry {
  id: string;
  subscriberId: string;
  /** Per subscriber, increasing: a subscriber's changes are delivered in this order. */
  sequence: number;
  email: string;
  /** The subscriber's status after the change. */
  subscriberStatus: SubscriberStatus;
  subscribedAt: number;
  state: OutboxStatus;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
  deliveredAt: number | null;
}

export interface OutboxStats {
  pending: number;
  failed: number;
  /** `createdAt` of the oldest pending entry. */
  oldestPendingAt: number | null;
}

export interface SubscriberStore {
  /** Creates or updates the subscriber of `request.email` atomically, with its outbox entry. */
  signUp(request: SignupRequest): Promise<SignupResult>;
  /** Uses a confirm token: pending becomes subscribed; a repeat answers `already_confirmed`. */
  confirm(tokenHash: string, at: number, enqueue: boolean): Promise<TokenResult<ConfirmOutcome>>;
  /** Uses an unsubscribe token (long-lived, any the subscriber was mailed); clears the confirm token. */
  unsubscribe(tokenHash: string, at: number, enqueue: boolean): Promise<TokenResult<UnsubscribeOutcome>>;
  findSubscriber(email: string): Promise<SubscriberRecord | undefined>;
  findByUnsubscribeToken(tokenHash: string): Promise<SubscriberRecord | undefined>;
  /**
   * Leases up to `limit` due pending entries (`nextAttemptAt <= now`) until `now + leaseMs`, so no
   * other worker takes them meanwhile. An entry is never handed out while an earlier entry of the
   * same subscriber is still pending.
   */
  claimOutbox(now: number, limit: number, leaseMs: number): Promise<OutboxEntry[]>;
  markOutboxDelivered(id: string, at: number): Promise<void>;
  /** Records a failed attempt: retried at `nextAttemptAt`, or, when it is null, marked failed for good. */
  markOutboxAttemptFailed(
    id: string,
    failure: { attempts: number; nextAttemptAt: number | null; error: string },
    at: number,
  ): Promise<void>;
  outboxStats(): Promise<OutboxStats>;
  /** Entries in creation order, for inspection. */
  listOutbox(query: { state?: OutboxStatus; limit: number }): Promise<OutboxEntry[]>;
}
