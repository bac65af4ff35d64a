import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startUsageRetention } from '../../src/gateway/services/ledger/usage-retention.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { openSqliteStorage } from '../../src/storage/embedded/sqlite-storage.ts';
import { sampleRecord } from '../contracts/storage-contract.ts';
import { runNode } from '../helpers/spawn-server.ts';

describe('usage export and retention', () => {
  it('npm run usage:export writes JSON lines and CSV, filtered by day and app', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'export-'));
    const storage = openSqliteStorage(dataDir);
    const day = Date.UTC(2026, 10, 20, 12);
    await storage.usage.appendBatch([
      sampleRecord('e1', {
        createdAt: day,
        task: 'has,comma "quoted"',
        team: 'payments',
        endUser: 'ada@example.com',
        clientModel: 'claude-sonnet-4-5',
        guardrails: 'pii:input:mask,secrets:input:mask',
      }),
      sampleRecord('e2', { createdAt: day + 1, app: 'other', frontDoor: 'openai' }),
      sampleRecord('e3', { createdAt: day + 86_400_000 }),
    ]);
    await storage.close();
    const env = { DATA_DIR: dataDir };

    const jsonl = await runNode(
      ['src/cli/export-usage.ts', '--from', '2026-11-20', '--to', '2026-11-20'],
      env,
    );
    assert.equal(jsonl.code, 0, jsonl.stderr);
    const rows = jsonl.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      rows.map((r) => r.id),
      ['e1', 'e2'],
    );
    assert.equal(rows[0].createdAt, '2026-11-20T12:00:00.000Z');
    assert.equal(rows[0].attempts.length, 2);
    assert.deepEqual(
      rows.map((r) => r.frontDoor),
      ['native', 'openai'],
    );

    const csv = await runNode(['src/cli/export-usage.ts', '--format', 'csv', '--app', 'web'], env);
    const lines = csv.stdout.trim().split('\n');
    assert.match(
      lines[0] ?? '',
      /^id,requestId,createdAt,app,.*,errorCode,frontDoor,cacheReadTokens,cacheWrite5mTokens,cacheWrite1hTokens,cacheHit,costSavedUsd,deployment,mcpServer,mcpTool,team,endUser,clientModel,guardrails,batchId$/,
    );
    // Each round's columns come after the last round's, so readers by position keep working; the
    // company round's (team, person, the client's model, what guardrails did) last.
    assert.match(
      lines[1] ?? '',
      /,native,0,0,0,false,0,,,,payments,ada@example.com,claude-sonnet-4-5,"pii:input:mask,secrets:input:mask",$/,
    );
    assert.equal(lines.length, 3, 'header and the two records of app web');
    assert.ok(lines[1]?.includes('"has,comma ""quoted"""'), 'RFC 4180 quoting');

    const bad = await runNode(['src/cli/export-usage.ts', '--from', 'yesterday'], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--from/);
  });

  it('retention deletes records older than the configured days at start', async () => {
    const storage = openSqliteStorage(':memory:');
    const now = Date.UTC(2026, 10, 22);
    await storage.usage.appendBatch([
      sampleRecord('old', { createdAt: now - 31 * 86_400_000 }),
      sampleRecord('new', { createdAt: now - 29 * 86_400_000 }),
    ]);
    const stop = startUsageRetention(storage.usage, 30, createLogger({ level: 'silent' }), () => now);
    await new Promise((resolve) => setTimeout(resolve, 20));
    stop();
    assert.deepEqual(
      (await storage.usage.readRecords({ limit: 10 })).map((r) => r.id),
      ['new'],
    );
    await storage.close();
  });
});
