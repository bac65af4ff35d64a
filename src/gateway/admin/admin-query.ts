import { ApiError } from '../../platform/errors.ts';
import type { InsightRange } from '../../storage/ledger-insights.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const MAX_DAYS = 366;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;
/** Names of apps, providers, models and operations as the ledger stores them: bounded, printable. */
const FILTER_VALUE = /^[\x21-\x7e]{1,200}$/;

/**
 * The time range of an admin question: `from` and `to` are UTC days (`YYYY-MM-DD`, `to` inclusive,
 * as in GET /v1/usage) or RFC 3339 date-times (`to` exclusive). Either way the range is widened
 * to whole hours, the rollups' grain. Default: the 7 days up to the end of the current hour.
 */
export function parseRange(
  input: { from?: string | undefined; to?: string | undefined },
  now: number,
): InsightRange {
  const to =
    input.to === undefined
      ? Math.ceil((now + 1) / HOUR_MS) * HOUR_MS
      : ceilHour(parseInstant(input.to, '/to', true));
  const from =
    input.from === undefined ? to - 7 * DAY_MS : floorHour(parseInstant(input.from, '/from', false));
  if (to <= from) throw invalid('/to', 'must be after from');
  if (to - from > MAX_DAYS * DAY_MS) throw invalid('/to', `the range may span at most ${MAX_DAYS} days`);
  return { from, to };
}

const MAX_HOURLY_DAYS = 31;

/** Hourly buckets are for short ranges: 31 days are 744 hours, and the answer stays small. */
export function checkHourly(range: InsightRange, hourly: boolean, path: string): void {
  if (hourly && range.to - range.from > MAX_HOURLY_DAYS * DAY_MS)
    throw invalid(path, `hour buckets are for ranges of at most ${MAX_HOURLY_DAYS} days: use day`);
}

/** A comma-separated list of names from `allowed`, each at most once; `day` and `hour` exclude each other. */
export function parseGroups<G extends string>(
  value: string | undefined,
  allowed: readonly G[],
  fallback: G[],
): G[] {
  if (value === undefined) return fallback;
  const groups = value === '' ? [] : value.split(',').map((g) => g.trim());
  const unknown = groups.find((g) => !(allowed as readonly string[]).includes(g));
  if (unknown !== undefined)
    throw invalid('/groupBy', `must be a comma-separated list of: ${allowed.join(', ')}`);
  if (groups.includes('day') && groups.includes('hour'))
    throw invalid('/groupBy', 'may hold day or hour, not both');
  return [...new Set(groups)] as G[];
}

/** An exact-match filter (`app=web`); absent when not given. */
export function parseFilter(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (!FILTER_VALUE.test(value)) throw invalid(`/${name}`, 'must be 1 to 200 printable characters');
  return value;
}

export function invalid(path: string, message: string): ApiError {
  return new ApiError('invalid_request', `${path.slice(1)} ${message}`, { details: [{ path, message }] });
}

/** Epoch ms of a day's start (or, for an inclusive `to`, its end) or of a date-time. */
function parseInstant(value: string, path: string, endOfDay: boolean): number {
  if (DATE.test(value)) {
    const ms = Date.parse(`${value}T00:00:00Z`);
    if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value)
      throw invalid(path, 'must be a date (YYYY-MM-DD) or a date-time (RFC 3339)');
    return endOfDay ? ms + DAY_MS : ms;
  }
  const ms = DATE_TIME.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw invalid(path, 'must be a date (YYYY-MM-DD) or a date-time (RFC 3339)');
  return ms;
}

function floorHour(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

function ceilHour(ms: number): number {
  return Math.ceil(ms / HOUR_MS) * HOUR_MS;
}

/** A bucket's start as the API shows it: `2026-03-02` for a day, `2026-03-02T10:00:00.000Z` for an hour. */
export function formatBucket(kind: 'day' | 'hour', start: number): string {
  const iso = new Date(start).toISOString();
  return kind === 'day' ? iso.slice(0, 10) : iso;
}
