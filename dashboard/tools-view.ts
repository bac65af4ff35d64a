import { getJson, type UsageAnswer } from './api.ts';
import { drawChart, stackedBars } from './charts.ts';
import { dataTable, element, tile } from './dom.ts';
import { formatCount, formatPercent } from './format.ts';
import { tiles, type ViewLoader } from './views.ts';

/**
 * The MCP gateway's tool calls (CONTRACT 5.7): calls and failures per `server__tool` and app, from
 * the admin API's totals of the `mcp_tool` rows. Every figure is the API's, placed, not recomputed.
 */
export const tools: ViewLoader = async (range) => {
  const usage = await getJson<UsageAnswer>('usage', {
    from: range.from,
    groupBy: 'tool,app',
    operation: 'mcp_tool',
  });
  const rows = [...usage.rows].sort((a, b) => b.requests - a.requests);
  const names = [...new Set(rows.map((r) => r.tool ?? ''))];
  const callsOf = (name: string, failed: boolean) =>
    rows
      .filter((r) => (r.tool ?? '') === name)
      .reduce((sum, r) => sum + (failed ? r.errors : r.requests - r.errors), 0);
  const series = new Map([
    ['Answered', names.map((name) => callsOf(name, false))],
    ['Failed', names.map((name) => callsOf(name, true))],
  ]);
  const chart = stackedBars(names, series, 'Tool calls');
  chart.options = { ...chart.options, indexAxis: 'y' };
  return [
    tiles(
      usage,
      tile('Tool calls', formatCount(usage.totals.requests), 'tool-calls', usage.totals.requests),
      tile('Failed', formatCount(usage.totals.errors), 'tool-call-errors', usage.totals.errors),
      tile(
        'Error rate',
        formatPercent(usage.totals.errorRate),
        'tool-call-error-rate',
        usage.totals.errorRate,
      ),
    ),
    rows.length === 0
      ? element('p', { class: 'empty' }, 'No MCP tool call in this range.')
      : drawChart(`Horizontal bar chart: MCP tool calls by tool, answered and failed, ${range.label}`, chart),
    dataTable(
      `MCP tool calls by tool and app, ${range.label}`,
      ['tool', 'app', 'calls', 'failed', 'error rate'],
      rows.map((r) => [
        r.tool ?? '',
        r.app ?? '',
        formatCount(r.requests),
        formatCount(r.errors),
        formatPercent(r.errorRate),
      ]),
    ),
  ];
};
