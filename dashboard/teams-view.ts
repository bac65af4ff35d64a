import { type BudgetsAnswer, getJson, type UsageAnswer } from './api.ts';
import { drawChart, horizontalBars } from './charts.ts';
import { element, table, tile } from './dom.ts';
import { formatCount, formatPercent, formatUsd } from './format.ts';
import { tiles, type ViewLoader } from './views.ts';

const NO_TEAM = '(no team)';

/** A budget's use as a bar a screen reader reads as a percentage, beside the exact figure. */
function usageBar(used: number, label: string): HTMLElement {
  const meter = element('meter', {
    min: '0',
    max: '1',
    low: '0.8',
    high: '0.95',
    optimum: '0',
    value: String(Math.min(used, 1)),
    'aria-label': label,
  });
  return element('span', { class: 'budget-use' }, meter, ` ${formatPercent(used)}`);
}

/**
 * Spend by team (each app's spend counted for its team) and every team and app budget beside what
 * its UTC day or month has spent: the admin API's figures (`usage?groupBy=team`, `budgets`).
 */
export const teams: ViewLoader = async (range) => {
  const [usage, byApp, budgets] = await Promise.all([
    getJson<UsageAnswer>('usage', { from: range.from, groupBy: 'team' }),
    getJson<UsageAnswer>('usage', { from: range.from, groupBy: 'team,app' }),
    getJson<BudgetsAnswer>('budgets'),
  ]);
  const rows = [...usage.rows].sort((a, b) => b.costUsd - a.costUsd || b.requests - a.requests);
  const chart = horizontalBars(
    rows.map((r) => r.team ?? NO_TEAM),
    new Map([['Cost (USD)', rows.map((r) => r.costUsd)]]),
    'Cost (USD)',
  );
  const teamCount = rows.filter((r) => r.team !== null && r.team !== undefined).length;
  return [
    tiles(
      usage,
      tile('Teams with spend', formatCount(teamCount), 'teams-with-spend', teamCount),
      tile('Cost', formatUsd(usage.totals.costUsd), 'teams-total-cost', usage.totals.costUsd),
    ),
    rows.length === 0
      ? element('p', { class: 'empty' }, 'No request in this range.')
      : drawChart(`Horizontal bar chart: cost by team, ${range.label}`, chart),
    element(
      'div',
      { 'data-testid': 'team-spend' },
      table(
        `Spend by team, ${range.label}`,
        ['team', 'requests', 'failed', 'tokens in', 'tokens out', 'cost'],
        rows.map((r) => [
          r.team ?? NO_TEAM,
          formatCount(r.requests),
          formatCount(r.errors),
          formatCount(r.tokensIn),
          formatCount(r.tokensOut),
          formatUsd(r.costUsd),
        ]),
      ),
    ),
    element(
      'div',
      { 'data-testid': 'team-app-spend' },
      table(
        `Spend by team and app, ${range.label}`,
        ['team', 'app', 'requests', 'cost'],
        byApp.rows.map((r) => [
          r.team ?? NO_TEAM,
          r.app ?? '',
          formatCount(r.requests),
          formatUsd(r.costUsd),
        ]),
      ),
    ),
    budgets.budgets.length === 0
      ? element('p', { class: 'empty' }, 'No team or app has a daily or monthly budget.')
      : element(
          'div',
          { 'data-testid': 'budgets' },
          table(
            'Budgets: spent in the current UTC day or month against the limit',
            ['scope', 'name', 'window', 'spent', 'limit', 'used', 'resets'],
            budgets.budgets.map((b) => [
              b.scope === 'endUser' ? 'end user' : b.scope,
              b.scope === 'endUser'
                ? `${b.name} (${b.app === null ? `team ${b.team}` : `app ${b.app}`})`
                : b.name,
              b.window,
              formatUsd(b.spentUsd),
              formatUsd(b.limitUsd),
              usageBar(
                b.used,
                b.scope === 'endUser'
                  ? `end user ${b.name}, daily budget used`
                  : `${b.scope} ${b.name}, ${b.window} budget used`,
              ),
              `${b.resetsAt.slice(0, 16).replace('T', ' ')} UTC`,
            ]),
          ),
        ),
  ];
};
