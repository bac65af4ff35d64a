import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Operation, UsageAttempt, UsageLedger, UsageQuery, UsageRecord } from '../ports.ts';

export class SqliteUsageLedger implements UsageLedger {
  readonly #db: DatabaseSync;
  readonly #insertRequest: StatementSync;
  readonly #insertAttempt: StatementSync;
  readonly #selectAttempts: StatementSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#insertRequest = db.prepare(
      `INSERT INTO usage_requests (id, request_id, app, operation, task, provider, model, tokens_in, tokens_out,
         usage_estimated, cost_usd, price_source, latency_ms, upstream_first_byte_ms, upstream_ms, status, error_code, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    );
    this.#insertAttempt = db.prepare(
      `INSERT INTO usage_attempts (usage_id, attempt, provider, model, tokens_in, tokens_out, usage_estimated,
         cost_usd, latency_ms, outcome, upstream_status)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (usage_id, attempt) DO NOTHING`,
    );
    this.#selectAttempts = db.prepare('SELECT * FROM usage_attempts WHERE usage_id = ? ORDER BY attempt');
  }

  async readRecords(query: UsageQuery): Promise<UsageRecord[]> {
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (query.app !== undefined) {
      where.push('app = ?');
      params.push(query.app);
    }
    if (query.from !== undefined) {
      where.push('created_at >= ?');
      params.push(query.from);
    }
    if (query.to !== undefined) {
      where.push('created_at < ?');
      params.push(query.to);
    }
    const sql = `SELECT * FROM usage_requests ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY created_at, id LIMIT ?`;
    const rows = this.#db.prepare(sql).all(...params, query.limit) as unknown as RequestRow[];
    return rows.map((row) => toRecord(row, this.#selectAttempts.all(row.id) as unknown as AttemptRow[]));
  }

  async appendBatch(records: readonly UsageRecord[]): Promise<void> {
    if (records.length === 0) return;
    this.#db.exec('BEGIN');
    try {
      for (const r of records) {
        this.#insertRequest.run(
          r.id,
          r.requestId,
          r.app,
          r.operation,
          r.task,
          r.provider,
          r.model,
          r.tokensIn,
          r.tokensOut,
          r.usageEstimated ? 1 : 0,
          r.costUsd,
          r.priceSource,
          r.latencyMs,
          r.upstreamFirstByteMs,
          r.upstreamMs,
          r.status,
          r.errorCode,
          r.createdAt,
        );
        for (const a of r.attempts) {
          this.#insertAttempt.run(
            r.id,
            a.attempt,
            a.provider,
            a.model,
            a.tokensIn,
            a.tokensOut,
            a.usageEstimated ? 1 : 0,
            a.costUsd,
            a.latencyMs,
            a.outcome,
            a.upstreamStatus,
          );
        }
      }
      this.#db.exec('COMMIT');
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }
}

interface RequestRow {
  id: string;
  request_id: string;
  app: string;
  operation: string;
  task: string | null;
  provider: string | null;
  model: string | null;
  tokens_in: number;
  tokens_out: number;
  usage_estimated: number;
  cost_usd: number;
  price_source: string | null;
  latency_ms: number;
  upstream_first_byte_ms: number | null;
  upstream_ms: number | null;
  status: number;
  error_code: string | null;
  created_at: number;
}

interface AttemptRow {
  attempt: number;
  provider: string;
  model: string;
  tokens_in: number;
  tokens_out: number;
  usage_estimated: number;
  cost_usd: number;
  latency_ms: number;
  outcome: string;
  upstream_status: number | null;
}

function toAttempt(row: AttemptRow): UsageAttempt {
  return {
    attempt: row.attempt,
    provider: row.provider,
    model: row.model,
    tokensIn: Number(row.tokens_in),
    tokensOut: Number(row.tokens_out),
    usageEstimated: Boolean(row.usage_estimated),
    costUsd: row.cost_usd,
    latencyMs: row.latency_ms,
    outcome: row.outcome,
    upstreamStatus: row.upstream_status,
  };
}

function toRecord(row: RequestRow, attempts: AttemptRow[]): UsageRecord {
  return {
    id: row.id,
    requestId: row.request_id,
    app: row.app,
    operation: row.operation as Operation,
    task: row.task,
    provider: row.provider,
    model: row.model,
    tokensIn: Number(row.tokens_in),
    tokensOut: Number(row.tokens_out),
    usageEstimated: Boolean(row.usage_estimated),
    costUsd: row.cost_usd,
    priceSource: row.price_source,
    latencyMs: row.latency_ms,
    upstreamFirstByteMs: row.upstream_first_byte_ms,
    upstreamMs: row.upstream_ms,
    status: row.status,
    errorCode: row.error_code,
    createdAt: Number(row.created_at),
    attempts: attempts.map(toAttempt),
  };
}
