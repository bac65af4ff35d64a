import { parseArgs } from 'node:util';
import { loadConfigWithoutArguments } from '../config/load-config.ts';
import { messageWithCauses } from '../platform/error-chain.ts';
import { exitWith } from '../platform/exit-process.ts';
import { openStorage } from '../storage/open-storage.ts';
import type { UsageRecord } from '../storage/ports.ts';

const USAGE = `Export the usage ledger, one record per line, to standard output.

  npm run usage:export -- [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--app NAME] [--format jsonl|csv]

--from and --to are UTC days, both inclusive (default: everything). JSON lines carry every
field and the upstream attempts; CSV carries one row per request without the attempts.
Uses the same DATA_DIR / DATABASE_URL / CONFIG_FILE settings as the server.`;

const CSV_COLUMNS: (keyof UsageRecord)[] = [
  'id',
  'requestId',
  'createdAt',
  'app',
  'operation',
  'task',
  'provider',
  'model',
  'tokensIn',
  'tokensOut',
  'usageEstimated',
  'costUsd',
  'priceSource',
  'latencyMs',
  'upstreamFirstByteMs',
  'upstreamMs',
  'status',
  'errorCode',
  // Later columns go last, so that readers of the earlier columns by position keep working.
  'frontDoor',
  'cacheReadTokens',
  'cacheWrite5mTokens',
  'cacheWrite1hTokens',
  'cacheHit',
  'costSavedUsd',
  'deployment',
  'mcpServer',
  'mcpTool',
  'team',
  'endUser',
  'clientModel',
  'guardrails',
  'batchId',
];

/** RFC 4180 field: quoted when it holds a comma, quote or line break. */
function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function toLine(record: UsageRecord, format: string): string {
  if (format === 'jsonl')
    return JSON.stringify({ ...record, createdAt: new Date(record.createdAt).toISOString() });
  return CSV_COLUMNS.map((c) =>
    csvField(c === 'createdAt' ? new Date(record.createdAt).toISOString() : record[c]),
  ).join(',');
}

function parseDay(value: string | undefined, flag: string, endOfDay: boolean): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(ms))
    throw new Error(`${flag} must be a date as YYYY-MM-DD`);
  return endOfDay ? ms + 86_400_000 : ms;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      app: { type: 'string' },
      format: { type: 'string', default: 'jsonl' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.format !== 'jsonl' && values.format !== 'csv') throw new Error('--format must be jsonl or csv');
  const from = parseDay(values.from, '--from', false);
  const to = parseDay(values.to, '--to', true);
  const storage = await openStorage(loadConfigWithoutArguments());
  try {
    if (values.format === 'csv') process.stdout.write(`${CSV_COLUMNS.join(',')}\n`);
    let after: { createdAt: number; id: string } | undefined;
    for (;;) {
      const page = await storage.usage.readRecords({
        limit: 1000,
        ...(values.app === undefined ? {} : { app: values.app }),
        ...(from === undefined ? {} : { from }),
        ...(to === undefined ? {} : { to }),
        ...(after === undefined ? {} : { after }),
      });
      if (page.length === 0) break;
      const text = `${page.map((r) => toLine(r, values.format as string)).join('\n')}\n`;
      // Respect a slow reader (a pipe into gzip or a network copy): wait for the buffer to drain.
      if (!process.stdout.write(text)) await new Promise((resolve) => process.stdout.once('drain', resolve));
      const last = page.at(-1) as UsageRecord;
      after = { createdAt: last.createdAt, id: last.id };
    }
  } finally {
    await storage.close();
  }
  return 0;
}

main().then(
  (code) => exitWith(code),
  (error: unknown) => {
    console.error(messageWithCauses(error));
    exitWith(1);
  },
);
