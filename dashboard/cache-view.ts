import { getJson, type UsageAnswer } from './api.ts';
import { drawChart, lines, percentLines, stackedBars } from './charts.ts';
import { dataTable, element, tile } from './dom.ts';
import { formatBucket, formatCount, formatPercent, formatUsd } from './format.ts';
import { bucketOf, tiles, type ViewLoader } from './views.ts';

/**
 * The caches: the upstreams' prompt cache (input tokens read from and written to it, parts of the
 * tokens in) and the gateway's response cache (hits, their share of the requests, the money they
 * saved). Every figure is the admin API's, placed, not recomputed.
 */
export const caches: ViewLoader = async (range) => {
  const usage = await getJson<UsageAnswer>('usage', { from: range.from, groupBy: range.bucket });
  const totals = usage.totals;
  const labels = usage.rows.map((r) => formatBucket(bucketOf(r)));
  const promptCache = new Map([
    ['Read from the cache', usage.rows.map((r) => r.tokensInCacheRead)],
    ['Written to the cache', usage.rows.map((r) => r.tokensInCacheWrite)],
  ]);
  const hitRate = lines(
    labels,
    [{ label: 'Hit rate', data: usage.rows.map((r) => r.cacheHitRate) }],
    'Answered from the cache',
  );
  return [
    tiles(
      usage,
      tile(
        'Prompt-cache reads',
        formatCount(totals.tokensInCacheRead),
        'cache-read-tokens',
        totals.tokensInCacheRead,
      ),
      tile(
        'Prompt-cache writes',
        formatCount(totals.tokensInCacheWrite),
        'cache-write-tokens',
        totals.tokensInCacheWrite,
      ),
      tile('Response-cache hits', formatCount(totals.cacheHits), 'cache-hits', totals.cacheHits),
      tile('Hit rate', formatPercent(totals.cacheHitRate), 'cache-hit-rate', totals.cacheHitRate),
      tile('Saved', formatUsd(totals.costSavedUsd), 'cost-saved', totals.costSavedUsd),
    ),
    element(
      'div',
      { class: 'pair' },
      drawChart(
        `Stacked bar chart: input tokens read from and written to the upstreams' prompt cache per ${range.bucket}, ${range.label}`,
        stackedBars(labels, promptCache, 'Input tokens'),
      ),
      drawChart(
        `Line chart: share of requests answered from the response cache per ${range.bucket}, in percent, ${range.label}`,
        percentLines(hitRate),
      ),
    ),
    dataTable(
      `Caches per ${range.bucket}`,
      [
        range.bucket,
        'tokens in',
        'cache reads',
        'cache writes',
        'requests',
        'cache hits',
        'hit rate',
        'saved',
      ],
      usage.rows.map((r) => [
        formatBucket(bucketOf(r)),
        formatCount(r.tokensIn),
        formatCount(r.tokensInCacheRead),
        formatCount(r.tokensInCacheWrite),
        formatCount(r.requests),
        formatCount(r.cacheHits),
        formatPercent(r.cacheHitRate),
        formatUsd(r.costSavedUsd),
      ]),
    ),
  ];
};
