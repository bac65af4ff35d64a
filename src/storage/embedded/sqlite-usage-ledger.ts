import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { UsageLedger, UsageRecord } from '../ports.ts';

export class SqliteUsageLedger implements UsageLedger {
  readonly #db: DatabaseSync;
  readonly #insertRequest: StatementSync;
  readonly #insertAttempt: StatementSync;

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
