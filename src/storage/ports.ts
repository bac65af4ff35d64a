/**
 * Storage ports. Every implementation (embedded SQLite, PostgreSQL) passes the same contract
 * suite, so services never know which one they run on. All methods are async because the
 * server-backed implementations are.
 */

export interface AppRecord {
  name: string;
  /** `scrypt$N$r$p$salt$hash`, never the secret itself. */
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
  /** Returns false for an unknown or already revoked app. */
  revokeApp(name: string, at: number): Promise<boolean>;
}

export type Operation = 'chat' | 'chat_stream' | 'embed' | 'json';

/** One upstream call made while serving a request. */
export interface UsageAttempt {
  attempt: number;
  provider: string;
  model: string;
  tokensIn: number;
  tokensOut: number;
  usageEstimated: boolean;
  costUsd: number;
  latencyMs: number;
  /** `ok`, or the error code the attempt ended with. */
  outcome: string;
  upstreamStatus: number | null;
}

/** One served request, successful or not, with every upstream attempt it made. */
export interface UsageRecord {
  id: string;
  requestId: string;
  app: string;
  operation: Operation;
  task: string | null;
  provider: string | null;
  model: string | null;
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
  attempts: UsageAttempt[];
}

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

export type UsageGroup = 'day' | 'provider' | 'model' | 'operation';

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
  requests: number;
  errors: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
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

export interface Storage {
  apps: AppStore;
  usage: UsageLedger;
  /** Cheap liveness check for health reports. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
