import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openSqliteStorage } from '../src/storage/embedded/sqlite-storage.ts';
import type { UsageRecord } from '../src/storage/ports.ts';
import { PLAIN_ATTEMPT_FIELDS, PLAIN_REQUEST_FIELDS } from '../test/helpers/plain-usage-fields.ts';

/**
 * `node bench/ledger-capacity.ts`: rows a second the embedded ledger's writer thread commits, in
 * batches as the recorder sends them, on a fresh database and after `--long` rows whose model
 * names are `--length` characters long (what fuzzed requests left in the ledger on main, issue 27).
 * Each long name becomes a key of the hourly and daily rollups, which every later insert of that
 * hour reads through.
 */
const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '20000' },
    batch: { type: 'string', default: '50' },
    long: { type: 'string', default: '300' },
    length: { type: 'string', default: '100000' },
  },
});
const hour = Date.UTC(2026, 0, 1, 12);

function record(n: number, model: string): UsageRecord {
  return {
    id: `bench-${n}`,
    requestId: `req-${n}`,
    app: 'bench',
    operation: 'chat',
    frontDoor: 'native',
    task: null,
    provider: 'provider-a',
    model,
    tokensIn: 10,
    tokensOut: 20,
    usageEstimated: false,
    costUsd: 0.000123,
    priceSource: 'config',
    latencyMs: 3 + (n % 50),
    upstreamFirstByteMs: 1,
    upstreamMs: 2,
    status: 200,
    errorCode: null,
    createdAt: hour + (n % 1_000_000),
    ...PLAIN_REQUEST_FIELDS,
    attempts: [
      {
        attempt: 0,
        provider: 'provider-a',
        model,
        tokensIn: 10,
        tokensOut: 20,
        usageEstimated: false,
        costUsd: 0.000123,
        latencyMs: 2,
        outcome: 'ok',
        upstreamStatus: 200,
        ...PLAIN_ATTEMPT_FIELDS,
      },
    ],
  };
}

async function rowsPerSecond(storage: ReturnType<typeof openSqliteStorage>, from: number): Promise<number> {
  const rows = Number(values.rows);
  const size = Number(values.batch);
  const started = performance.now();
  for (let at = 0; at < rows; at += size) {
    const batch = Array.from({ length: Math.min(size, rows - at) }, (_, i) =>
      record(from + at + i, 'simulated-chat'),
    );
    await storage.usage.appendBatch(batch);
  }
  return (rows * 1000) / (performance.now() - started);
}

const dir = mkdtempSync(join(tmpdir(), 'ledger-capacity-'));
const storage = openSqliteStorage(dir);
try {
  const fresh = await rowsPerSecond(storage, 0);
  const long = Number(values.long);
  for (let at = 0; at < long; at += 10) {
    const batch = Array.from({ length: Math.min(10, long - at) }, (_, i) =>
      record(1e7 + at + i, `simulated-${at + i}-${'a'.repeat(Number(values.length))}`),
    );
    await storage.usage.appendBatch(batch);
  }
  const after = await rowsPerSecond(storage, 2e7);
  process.stdout.write(
    `fresh: ${fresh.toFixed(0)} rows/s; after ${long} rows with ${values.length}-character model names in the same hour: ${after.toFixed(0)} rows/s\n`,
  );
} finally {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
}
