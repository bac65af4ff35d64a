import { type GuardrailsAnswer, getJson } from './api.ts';
import { drawChart, horizontalBars } from './charts.ts';
import { element, table, tile } from './dom.ts';
import { formatCount } from './format.ts';
import { tiles, type ViewLoader } from './views.ts';

/**
 * What guardrails did (CONTRACT 6.6, decision 0029): requests per guard, phase and action, from
 * the ledger's `guardrails` column through `GET /admin/api/guardrails`. What a guard matched is
 * never recorded, so it cannot be shown.
 */
export const guardrails: ViewLoader = async (range) => {
  const answer = await getJson<GuardrailsAnswer>('guardrails', { from: range.from });
  const guards = [...new Set(answer.rows.map((r) => r.guard))];
  const actions = [...new Set(answer.rows.map((r) => r.action))];
  const series = new Map(
    actions.map((action) => [
      action,
      guards.map((guard) =>
        answer.rows
          .filter((r) => r.guard === guard && r.action === action)
          .reduce((s, r) => s + r.requests, 0),
      ),
    ]),
  );
  const chart = horizontalBars(guards, series, 'Requests');
  const blocked = answer.rows.filter((r) => r.action === 'block').reduce((s, r) => s + r.requests, 0);
  return [
    tiles(answer, tile('Blocks', formatCount(blocked), 'guardrail-blocks', blocked)),
    answer.rows.length === 0
      ? element('p', { class: 'empty' }, 'No guard acted in this range.')
      : drawChart(`Horizontal bar chart: requests each guard acted on, by action, ${range.label}`, chart),
    element(
      'div',
      { 'data-testid': 'guardrail-actions' },
      table(
        `Requests per guard, phase and action, ${range.label}`,
        ['guard', 'phase', 'action', 'requests'],
        answer.rows.map((r) => [r.guard, r.phase, r.action, formatCount(r.requests)]),
      ),
    ),
  ];
};
