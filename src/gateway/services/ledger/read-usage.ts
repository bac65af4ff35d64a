import { ApiError } from '../../../platform/errors.ts';
import type { Storage, UsageGroup, UsageTotalsRow } from '../../../storage/ports.ts';
import type { UsageRecorder } from './usage-recorder.ts';

export const USAGE_GROUPS: readonly UsageGroup[] = [
  'day',
  'provider',
  'model',
  'operation',
  'frontDoor',
  'deployment',
  'tool',
  'endUser',
  'batch',
];
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MAX_DAYS = 366;

/** What GET /v1/usage reads besides the query: the ledger, and the records not yet written to it. */
export interface UsageReadingDeps {
  storage: Storage;
  recorder: UsageRecorder;
}

export interface UsageQueryInput {
  from?: string | undefined;
  to?: string | undefined;
  groupBy?: string | undefined;
}

export interface UsageReport {
  app: string;
  from: string;
  to: string;
  groupBy: UsageGroup[];
  totals: UsageTotalsRow;
  rows: UsageTotalsRow[];
}

/**
 * GET /v1/usage: an app's own totals over whole UTC days (`from` and `to` inclusive; default the
 * current month to date), grouped as asked. Records still waiting in this instance's recorder
 * are written first (for up to a few seconds: see flushBeforeRead), so an app reads its own
 * latest requests.
 */
export async function readUsage(
  storage: Storage,
  recorder: UsageRecorder,
  app: string,
  input: UsageQueryInput,
  now: number,
): Promise<UsageReport> {
  const today = new Date(now).toISOString().slice(0, 10);
  const from = input.from ?? `${today.slice(0, 7)}-01`;
  const to = input.to ?? today;
  const fromMs = parseDay(from, '/from');
  const toMs = parseDay(to, '/to') + 86_400_000;
  if (toMs <= fromMs) throw invalid('/to', 'must not be before from');
  if (toMs - fromMs > MAX_DAYS * 86_400_000)
    throw invalid('/to', `the period may span at most ${MAX_DAYS} days`);
  const groupBy = parseGroups(input.groupBy ?? 'day');
  await recorder.flushBeforeRead();
  const [rows, totals] = await Promise.all([
    storage.usage.totals({ app, from: fromMs, to: toMs, groupBy }),
    storage.usage.totals({ app, from: fromMs, to: toMs, groupBy: [] }),
  ]);
  return { app, from, to, groupBy, totals: totals[0] as UsageTotalsRow, rows };
}

function parseDay(value: string, path: string): number {
  const ms = DATE.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value)
    throw invalid(path, 'must be a date as YYYY-MM-DD');
  return ms;
}

function parseGroups(value: string): UsageGroup[] {
  const groups = value === '' ? [] : value.split(',').map((g) => g.trim());
  const unknown = groups.find((g) => !(USAGE_GROUPS as readonly string[]).includes(g));
  if (unknown !== undefined)
    throw invalid('/groupBy', `must be a comma-separated list of: ${USAGE_GROUPS.join(', ')}`);
  return [...new Set(groups)] as UsageGroup[];
}

function invalid(path: string, message: string): ApiError {
  return new ApiError('invalid_request', `${path.slice(1)} ${message}`, { details: [{ path, message }] });
}
