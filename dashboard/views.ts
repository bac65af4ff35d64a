import {
  type AppsAnswer,
  type FailureAnswer,
  getJson,
  type LatencyAnswer,
  type RefusalAnswer,
  type TotalsRow,
  type UsageAnswer,
} from './api.ts';
import { drawChart, lines, percentLines, stackedBars } from './charts.ts';
import { dataTable, element, table, tile } from './dom.ts';
import { formatBucket, formatCount, formatMs, formatPercent, formatTime, formatUsd } from './format.ts';

/** What a view is asked for: the API's own range parameters and the bucket that suits its length. */
export interface ViewRange {
  from: string;
  bucket: 'hour' | 'day';
  label: string;
}

export type ViewLoader = (range: ViewRange, section: HTMLElement) => Promise<Node[]>;

/** The bucket of a row: its `hour` or `day` field. */
export const bucketOf = (row: { day?: string | undefined; hour?: string | undefined }): string =>
  row.hour ?? row.day ?? '';

/** Lays rows out as series over buckets (a pivot: the API's numbers, placed, not recomputed). */
function pivot<R>(rows: R[], bucket: (r: R) => string, key: (r: R) => string, value: (r: R) => number) {
  const labels = [...new Set(rows.map(bucket))];
  const series = new Map<string, number[]>();
  for (const row of rows) {
    const name = key(row);
    let data = series.get(name);
    if (data === undefined) {
      data = labels.map(() => 0);
      series.set(name, data);
    }
    data[labels.indexOf(bucket(row))] = value(row);
  }
  return { labels, series };
}

const rangeAttributes = (answer: { from: string; to: string }) => ({
  'data-from': answer.from,
  'data-to': answer.to,
});

export function tiles(answer: { from: string; to: string }, ...items: HTMLElement[]): HTMLElement {
  return element('div', { class: 'tiles', ...rangeAttributes(answer) }, ...items);
}

const seriesName = (row: TotalsRow, by: string): string =>
  String((row as unknown as Record<string, unknown>)[by] ?? '(none)');

export const cost: ViewLoader = async (range, section) => {
  const stackBy = section.querySelector<HTMLSelectElement>('.stack-by')?.value ?? 'app';
  const usage = await getJson<UsageAnswer>('usage', {
    from: range.from,
    groupBy: `${range.bucket},${stackBy}`,
  });
  const costs = pivot(
    usage.rows,
    bucketOf,
    (r) => seriesName(r, stackBy),
    (r) => r.costUsd,
  );
  const requests = pivot(
    usage.rows,
    bucketOf,
    (r) => seriesName(r, stackBy),
    (r) => r.requests,
  );
  const labels = costs.labels.map(formatBucket);
  return [
    tiles(
      usage,
      tile('Requests', formatCount(usage.totals.requests), 'total-requests', usage.totals.requests),
      tile('Cost', formatUsd(usage.totals.costUsd), 'total-cost', usage.totals.costUsd),
      tile('Errors', formatCount(usage.totals.errors), 'total-errors', usage.totals.errors),
    ),
    element(
      'div',
      { class: 'pair' },
      drawChart(
        `Stacked bar chart: cost in US dollars per ${range.bucket} by ${stackBy}, ${range.label}`,
        stackedBars(labels, costs.series, 'Cost (USD)'),
      ),
      drawChart(
        `Stacked bar chart: requests per ${range.bucket} by ${stackBy}, ${range.label}`,
        stackedBars(labels, requests.series, 'Requests'),
      ),
    ),
    dataTable(
      `Cost and requests per ${range.bucket} and ${stackBy}`,
      [range.bucket, stackBy, 'requests', 'cost (USD)'],
      usage.rows.map((r) => [
        formatBucket(bucketOf(r)),
        seriesName(r, stackBy),
        formatCount(r.requests),
        formatUsd(r.costUsd),
      ]),
    ),
  ];
};

export const tokens: ViewLoader = async (range) => {
  const usage = await getJson<UsageAnswer>('usage', { from: range.from, groupBy: range.bucket });
  const labels = usage.rows.map((r) => formatBucket(bucketOf(r)));
  const series = new Map([
    ['Tokens in', usage.rows.map((r) => r.tokensIn)],
    ['Tokens out', usage.rows.map((r) => r.tokensOut)],
  ]);
  const config = stackedBars(labels, series, 'Tokens');
  return [
    tiles(
      usage,
      tile('Tokens in', formatCount(usage.totals.tokensIn), 'total-tokens-in', usage.totals.tokensIn),
      tile('Tokens out', formatCount(usage.totals.tokensOut), 'total-tokens-out', usage.totals.tokensOut),
    ),
    drawChart(`Stacked bar chart: tokens in and out per ${range.bucket}, ${range.label}`, config),
    dataTable(
      `Tokens per ${range.bucket}`,
      [range.bucket, 'tokens in', 'tokens out'],
      usage.rows.map((r) => [formatBucket(bucketOf(r)), formatCount(r.tokensIn), formatCount(r.tokensOut)]),
    ),
  ];
};

export const errors: ViewLoader = async (range) => {
  const usage = await getJson<UsageAnswer>('usage', { from: range.from, groupBy: range.bucket });
  const labels = usage.rows.map((r) => formatBucket(bucketOf(r)));
  return [
    tiles(
      usage,
      tile('Error rate', formatPercent(usage.totals.errorRate), 'error-rate', usage.totals.errorRate),
      tile('Failed requests', formatCount(usage.totals.errors), 'error-count', usage.totals.errors),
    ),
    drawChart(
      `Line chart: share of requests that failed per ${range.bucket}, in percent, ${range.label}`,
      percentLines(
        lines(labels, [{ label: 'Error rate', data: usage.rows.map((r) => r.errorRate) }], 'Failed requests'),
      ),
    ),
    dataTable(
      `Error rate per ${range.bucket}`,
      [range.bucket, 'requests', 'failed', 'error rate'],
      usage.rows.map((r) => [
        formatBucket(bucketOf(r)),
        formatCount(r.requests),
        formatCount(r.errors),
        formatPercent(r.errorRate),
      ]),
    ),
  ];
};

export const latency: ViewLoader = async (range) => {
  const answer = await getJson<LatencyAnswer>('latency', { from: range.from, bucket: range.bucket });
  const labels = answer.rows.map((r) => formatBucket(bucketOf(r)));
  return [
    tiles(
      answer,
      tile('p50', formatMs(answer.overall.p50Ms), 'latency-p50', answer.overall.p50Ms ?? ''),
      tile('p95', formatMs(answer.overall.p95Ms), 'latency-p95', answer.overall.p95Ms ?? ''),
      tile('p99', formatMs(answer.overall.p99Ms), 'latency-p99', answer.overall.p99Ms ?? ''),
    ),
    drawChart(
      `Line chart: request latency p50 and p95 per ${range.bucket}, in milliseconds, ${range.label}`,
      lines(
        labels,
        [
          { label: 'p50', data: answer.rows.map((r) => r.p50Ms) },
          { label: 'p95', data: answer.rows.map((r) => r.p95Ms) },
        ],
        'Milliseconds',
      ),
    ),
    dataTable(
      `Latency per ${range.bucket}`,
      [range.bucket, 'requests', 'p50', 'p95', 'p99'],
      answer.rows.map((r) => [
        formatBucket(bucketOf(r)),
        formatCount(r.requests),
        formatMs(r.p50Ms),
        formatMs(r.p95Ms),
        formatMs(r.p99Ms),
      ]),
    ),
  ];
};

export const refusals: ViewLoader = async (range) => {
  const answer = await getJson<RefusalAnswer>('refusals', {
    from: range.from,
    groupBy: `${range.bucket},limit`,
  });
  const { labels, series } = pivot(
    answer.rows,
    bucketOf,
    (r) => r.limit ?? '',
    (r) => r.refusals,
  );
  return [
    tiles(answer, tile('Refused requests', formatCount(answer.total), 'refusals-total', answer.total)),
    answer.rows.length === 0
      ? element('p', { class: 'empty' }, 'No request was refused by a limit in this range.')
      : drawChart(
          `Stacked bar chart: requests refused by a limit per ${range.bucket}, by limit, ${range.label}`,
          stackedBars(labels.map(formatBucket), series, 'Refused requests'),
        ),
    dataTable(
      `Limit refusals per ${range.bucket}`,
      [range.bucket, 'limit', 'refused'],
      answer.rows.map((r) => [formatBucket(bucketOf(r)), r.limit ?? '', formatCount(r.refusals)]),
    ),
  ];
};

export const apps: ViewLoader = async (range) => {
  const [usage, registered] = await Promise.all([
    getJson<UsageAnswer>('usage', { from: range.from, groupBy: 'app' }),
    getJson<AppsAnswer>('apps'),
  ]);
  const top = [...usage.rows].sort((a, b) => b.costUsd - a.costUsd || b.requests - a.requests).slice(0, 10);
  const chart = stackedBars(
    top.map((r) => r.app ?? ''),
    new Map([['Cost (USD)', top.map((r) => r.costUsd)]]),
    'Cost (USD)',
  );
  chart.options = { ...chart.options, indexAxis: 'y', plugins: { legend: { display: false } } };
  return [
    drawChart(`Horizontal bar chart: the ten apps that cost most, ${range.label}`, chart),
    table(
      `Apps by cost, ${range.label}`,
      ['app', 'requests', 'failed', 'error rate', 'tokens in', 'tokens out', 'cost'],
      top.map((r) => [
        r.app ?? '',
        formatCount(r.requests),
        formatCount(r.errors),
        formatPercent(r.errorRate),
        formatCount(r.tokensIn),
        formatCount(r.tokensOut),
        formatUsd(r.costUsd),
      ]),
    ),
    table(
      'Apps, their limits and their use today and this month (UTC)',
      ['app', 'status', 'limits', 'requests today', 'cost today', 'cost this month'],
      registered.apps.map((a) => [
        a.name,
        a.status,
        Object.entries(a.limits)
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ') || 'none',
        formatCount(a.today.requests),
        formatUsd(a.today.costUsd),
        formatUsd(a.thisMonth.costUsd),
      ]),
    ),
  ];
};

export const failures: ViewLoader = async (range) => {
  const answer = await getJson<FailureAnswer>('failures', { from: range.from, limit: '50' });
  if (answer.failures.length === 0)
    return [element('p', { class: 'empty' }, 'No failed request in this range.')];
  return [
    table(
      `The ${answer.failures.length} most recent failed requests, ${range.label}`,
      ['time', 'app', 'operation', 'provider / model', 'status', 'error code', 'latency', 'request id'],
      answer.failures.map((f) => [
        formatTime(f.createdAt),
        f.app,
        f.operation,
        `${f.provider ?? '–'} / ${f.model ?? '–'}`,
        String(f.status),
        element('code', {}, f.errorCode ?? '–'),
        formatMs(f.latencyMs),
        element('code', {}, f.requestId),
      ]),
    ),
  ];
};
