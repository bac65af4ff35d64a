import type { UsageLedger, UsageQuery, UsageRecord, UsageTotalsQuery, UsageTotalsRow } from '../ports.ts';
import { ROLLUP_DELETES, wholeBucketsBefore } from '../rollup-retention.ts';
import { numberPlaceholders } from '../sql-ledger-insights.ts';
import {
  ATTEMPT_COLUMNS,
  type AttemptRow,
  attemptValues,
  REQUEST_COLUMNS,
  type RequestRow,
  requestValues,
  type TotalsRowRaw,
  toRecord,
  toTotalsRow,
  totalsSql,
} from '../usage-rows.ts';
import type { PgConnections } from './pg-connections.ts';
import { longRunning } from './pg-statement-timeout.ts';
import { inTransaction } from './pg-transaction.ts';

const DAY_EXPRESSION = "to_char(to_timestamp(created_at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')";

/** `($1, $2, …), ($n+1, …)` for a multi-row INSERT. */
function valuesList(rows: number, columns: number): string {
  return Array.from(
    { length: rows },
    (_, r) => `(${Array.from({ length: columns }, (_, c) => `$${r * columns + c + 1}`).join(', ')})`,
  ).join(', ');
}

export class PgUsageLedger implements UsageLedger {
  readonly #pool: PgConnections;

  constructor(pool: PgConnections) {
    this.#pool = pool;
  }

  async appendBatch(records: readonly UsageRecord[]): Promise<void> {
    if (records.length === 0) return;
    // A failed batch stays queued and is written again; a record id already stored is skipped.
    await inTransaction(this.#pool, async (client) => {
      // One multi-row statement per table: a batch costs two round trips, whatever its size.
      const inserted = await client.query<{ id: string }>(
        `INSERT INTO usage_requests (${REQUEST_COLUMNS.join(', ')}) VALUES ${valuesList(records.length, REQUEST_COLUMNS.length)}
         ON CONFLICT (id) DO NOTHING RETURNING id`,
        records.flatMap(requestValues),
      );
      const fresh = new Set(inserted.rows.map((r) => r.id));
      const attempts = records
        .filter((r) => fresh.has(r.id))
        .flatMap((r) => r.attempts.map((a) => attemptValues(r.id, a)));
      if (attempts.length > 0) {
        await client.query(
          `INSERT INTO usage_attempts (${ATTEMPT_COLUMNS.join(', ')}) VALUES ${valuesList(attempts.length, ATTEMPT_COLUMNS.length)}
           ON CONFLICT (usage_id, attempt) DO NOTHING`,
          attempts.flat(),
        );
      }
    });
  }

  async readRecords(query: UsageQuery): Promise<UsageRecord[]> {
    const where: string[] = [];
    const params: (string | number)[] = [];
    const add = (clause: string, value: string | number) => {
      params.push(value);
      where.push(clause.replace('?', `$${params.length}`));
    };
    if (query.app !== undefined) add('app = ?', query.app);
    if (query.from !== undefined) add('created_at >= ?', query.from);
    if (query.to !== undefined) add('created_at < ?', query.to);
    if (query.after !== undefined) {
      params.push(query.after.createdAt, query.after.id);
      where.push(`(created_at, id) > ($${params.length - 1}, $${params.length})`);
    }
    params.push(query.limit);
    const { rows } = await this.#pool.query<RequestRow>(
      `SELECT * FROM usage_requests ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, id LIMIT $${params.length}`,
      params,
    );
    if (rows.length === 0) return [];
    const attempts = await this.#pool.query<AttemptRow>(
      'SELECT * FROM usage_attempts WHERE usage_id = ANY($1) ORDER BY usage_id, attempt',
      [rows.map((r) => r.id)],
    );
    const byRecord = new Map<string, AttemptRow[]>();
    for (const attempt of attempts.rows) {
      const list = byRecord.get(attempt.usage_id as string) ?? [];
      list.push(attempt);
      byRecord.set(attempt.usage_id as string, list);
    }
    return rows.map((row) => toRecord(row, byRecord.get(row.id) ?? []));
  }

  async totals(query: UsageTotalsQuery): Promise<UsageTotalsRow[]> {
    const { select, group } = totalsSql(query.groupBy, DAY_EXPRESSION);
    const { rows } = await this.#pool.query<TotalsRowRaw>(
      `SELECT ${select} FROM usage_requests WHERE app = $1 AND created_at >= $2 AND created_at < $3 ${group}`,
      [query.app, query.from, query.to],
    );
    return rows.map((row) => toTotalsRow(row, query.groupBy));
  }

  deleteBefore(cutoff: number): Promise<number> {
    return inTransaction(this.#pool, async (client) => {
      const query = longRunning(client);
      await query(
        'DELETE FROM usage_attempts WHERE usage_id IN (SELECT id FROM usage_requests WHERE created_at < $1)',
        [cutoff],
      );
      const result = await query('DELETE FROM usage_requests WHERE created_at < $1', [cutoff]);
      for (const { sql, grainMs } of ROLLUP_DELETES)
        await query(numberPlaceholders(sql), [wholeBucketsBefore(cutoff, grainMs)]);
      return result.rowCount ?? 0;
    });
  }
}
