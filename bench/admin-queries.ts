import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openSqliteStorage } from '../src/storage/embedded/sqlite-storage.ts';
import type { InsightGroup } from '../src/storage/ledger-insights.ts';
import type { Storage, UsageRecord } from '../src/storage/ports.ts';
import { openPostgresStorage } from '../src/storage/postgres/pg-storage.ts';
import { PLAIN_REQUEST_FIELDS } from '../test/helpers/plain-usage-fields.ts';
import { createTestSchema } from '../test/helpers/postgres.ts';

/**
 * `node bench/admin-queries.ts [--rows 1000000] [--stores sqlite,postgres]`: fills a fresh ledger
 * with `rows` requests spread over 30 days (20 apps, each on two of 8 models across 3 providers;
 * 2% failures; log-normal latency), through the ledger's own appendBatch (so its rollup trigger
 * runs), then times every question the dashboard asks for a 30-day range, on each store.
 */
const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    runs: { type: 'string', default: '5' },
    out: { type: 'string' },
    // Only to price the rollup: drops the trigger first, so the write rate is the ledger's alone
    // (the questions then answer from empty rollups).
    'without-trigger': { type: 'boolean', default: false },
  },
});
const WITHOUT_TRIGGER = values['without-trigger'];
const ROWS = Number(values.rows);
const RUNS = Number(values.runs);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Math.floor(Date.now() / HOUR) * HOUR;
const FROM = NOW - 30 * DAY;

const MODELS: [string, string][] = [
  ['provider-a', 'gpt-4o-mini'],
  ['provider-a', 'gpt-4o'],
  ['provider-a', 'text-embedding-3-small'],
  ['provider-b', 'claude-haiku-4-5'],
  ['provider-b', 'claude-sonnet-4-5'],
  ['provider-c', 'gemini-2.5-flash'],
  ['provider-c', 'gemini-2.5-pro'],
  ['provider-c', 'gemini-embedding-001'],
];

/** A deterministic pseudo-random sequence, so both stores get the same rows. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function* records(count: number): Generator<UsageRecord[]> {
  const next = random(42);
  let batch: UsageRecord[] = [];
  for (let i = 0; i < count; i++) {
    const app = Math.floor(next() * 20);
    const [provider, model] = MODELS[(app + (next() < 0.7 ? 0 : 3)) % MODELS.length] as [string, string];
    const embed = model.includes('embedding');
    const failed = next() < 0.02;
    // Box–Muller: log-normal latency around 600 ms.
    const normal = Math.sqrt(-2 * Math.log(next() || 1e-9)) * Math.cos(2 * Math.PI * next());
    batch.push({
      id: `r${i}`,
      requestId: `q${i}`,
      app: `app-${app}`,
      operation: embed ? 'embed' : next() < 0.3 ? 'chat_stream' : 'chat',
      task: null,
      frontDoor: next() < 0.6 ? 'native' : next() < 0.5 ? 'openai' : 'anthropic',
      provider,
      model,
      tokensIn: 50 + Math.floor(next() * 2000),
      tokensOut: embed ? 0 : Math.floor(next() * 800),
      usageEstimated: false,
      costUsd: next() * 0.01,
      priceSource: 'genai-prices',
      latencyMs: Math.exp(Math.log(600) + 0.7 * normal),
      upstreamFirstByteMs: null,
      upstreamMs: null,
      status: failed ? 502 : 200,
      errorCode: failed ? 'upstream_error' : null,
      createdAt: FROM + Math.floor((i / count) * 30 * DAY),
      ...PLAIN_REQUEST_FIELDS,
      attempts: [],
    });
    if (batch.length === 1000) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

const dayBy = (group: InsightGroup): InsightGroup[] => ['day', group];
const range = { from: FROM, to: NOW + HOUR };

/** What the dashboard asks for "last 30 days", view by view. */
const QUESTIONS: [string, (s: Storage) => Promise<unknown>][] = [
  ['usage totals (tiles)', (s) => s.insights.totals({ ...range, groupBy: [], filters: {} })],
  [
    'usage by day and app (cost view)',
    (s) => s.insights.totals({ ...range, groupBy: dayBy('app'), filters: {} }),
  ],
  ['usage by day and model', (s) => s.insights.totals({ ...range, groupBy: dayBy('model'), filters: {} })],
  [
    'usage by day and provider',
    (s) => s.insights.totals({ ...range, groupBy: dayBy('provider'), filters: {} }),
  ],
  ['usage by day (tokens, errors)', (s) => s.insights.totals({ ...range, groupBy: ['day'], filters: {} })],
  ['usage by hour, 720 hours', (s) => s.insights.totals({ ...range, groupBy: ['hour'], filters: {} })],
  [
    'usage by day and front door',
    (s) => s.insights.totals({ ...range, groupBy: dayBy('frontDoor'), filters: {} }),
  ],
  ['usage by app (top apps)', (s) => s.insights.totals({ ...range, groupBy: ['app'], filters: {} })],
  [
    'usage of one app by day',
    (s) => s.insights.totals({ ...range, groupBy: ['day'], filters: { app: 'app-3' } }),
  ],
  ['latency histogram, whole range', (s) => s.insights.latency({ ...range, bucket: undefined, filters: {} })],
  ['latency histogram by day', (s) => s.insights.latency({ ...range, bucket: 'day', filters: {} })],
  ['limit refusals by day and limit', (s) => s.insights.refusals({ ...range, groupBy: ['day', 'limit'] })],
  ['50 most recent failures', (s) => s.insights.failures({ ...range, limit: 50 })],
];

async function time(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function measure(
  name: string,
  storage: Storage,
  raw: () => Promise<unknown>,
  dropTrigger: () => Promise<unknown>,
): Promise<string[]> {
  const lines = [`### ${name}${WITHOUT_TRIGGER ? ' (rollup trigger dropped)' : ''}`, ''];
  if (WITHOUT_TRIGGER) await dropTrigger();
  const insertStart = performance.now();
  for (const batch of records(ROWS)) await storage.usage.appendBatch(batch);
  const insertSeconds = (performance.now() - insertStart) / 1000;
  lines.push(
    `${ROWS.toLocaleString('en')} ledger rows written through appendBatch (${WITHOUT_TRIGGER ? 'without' : 'with'} the rollup trigger) in ${insertSeconds.toFixed(1)} s (${Math.round(ROWS / insertSeconds).toLocaleString('en')} rows/s).`,
    '',
    '| question (30 days) | median ms | max ms | rows answered |',
    '|---|---:|---:|---:|',
  );
  for (const [label, ask] of [
    ...QUESTIONS,
    ['for comparison: by day and app straight from usage_requests', raw] as const,
  ]) {
    const answer = (await (ask as (s: Storage) => Promise<unknown>)(storage)) as unknown[];
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++)
      times.push(await time(() => (ask as (s: Storage) => Promise<unknown>)(storage)));
    times.sort((a, b) => a - b);
    const row = `| ${label} | ${(times[Math.floor(times.length / 2)] as number).toFixed(1)} | ${(times.at(-1) as number).toFixed(1)} | ${answer.length} |`;
    console.log(`${name}: ${row}`);
    lines.push(row);
  }
  return [...lines, ''];
}

const report: string[] = [
  `# Admin queries over ${ROWS.toLocaleString('en')} ledger rows (30 days)`,
  '',
  `\`node bench/admin-queries.ts --rows ${ROWS}\` on ${new Date().toISOString().slice(0, 10)}; ${RUNS} timed runs after one warm-up, per question.`,
  `${cpus().length} cores; load average at the start ${loadavg()
    .map((l) => l.toFixed(1))
    .join(', ')} (the machine is shared: other test suites ran meanwhile).`,
  '',
];
const stores = String(values.stores).split(',');
if (stores.includes('sqlite')) {
  const dir = mkdtempSync(join(tmpdir(), 'admin-bench-'));
  const storage = openSqliteStorage(dir);
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(join(dir, 'gateway.sqlite'));
  const rawSql = `SELECT created_at / 86400000 AS day, app, COUNT(*), SUM(cost_usd), SUM(tokens_in), SUM(tokens_out)
    FROM usage_requests WHERE created_at >= ? AND created_at < ? GROUP BY 1, 2`;
  report.push(
    ...(await measure(
      'SQLite (file, WAL)',
      storage,
      async () => db.prepare(rawSql).all(range.from, range.to),
      async () => db.exec('DROP TRIGGER usage_requests_rollup'),
    )),
  );
  db.close();
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
}
if (stores.includes('postgres')) {
  const schema = await createTestSchema();
  const storage = await openPostgresStorage(schema.url);
  const pg = (await import('pg')).default;
  const pool = new pg.Pool({ connectionString: schema.url, max: 1 });
  const rawSql = `SELECT created_at / 86400000 AS day, app, COUNT(*), SUM(cost_usd), SUM(tokens_in), SUM(tokens_out)
    FROM usage_requests WHERE created_at >= $1 AND created_at < $2 GROUP BY 1, 2`;
  report.push(
    ...(await measure(
      'PostgreSQL',
      storage,
      async () => (await pool.query(rawSql, [range.from, range.to])).rows,
      () => pool.query('DROP TRIGGER usage_requests_rollup ON usage_requests'),
    )),
  );
  await pool.end();
  await storage.close();
  await schema.drop();
}
report.push(
  `Load average at the end: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(', ')}.`,
);
console.log(report.join('\n'));
if (values.out !== undefined) writeFileSync(values.out, `${report.join('\n')}\n`);
