import { type AppsAnswer, getJson, type UsageAnswer } from './api.ts';
import { drawChart, horizontalBars } from './charts.ts';
import { element, table, tile } from './dom.ts';
import { formatCount, formatUsd } from './format.ts';
import { tiles, type ViewLoader } from './views.ts';

const NOBODY = '(not named)';
const TOP = 15;

/** Fills the app picker with the registered apps, keeping the choice made (the first app otherwise). */
function pickApp(select: HTMLSelectElement | null, apps: AppsAnswer['apps']): string | undefined {
  if (select === null) return undefined;
  const chosen = select.value;
  const names = apps.filter((a) => a.status === 'active').map((a) => a.name);
  select.replaceChildren(...names.map((name) => element('option', { value: name }, name)));
  select.value = names.includes(chosen) ? chosen : (names[0] ?? '');
  return select.value === '' ? undefined : select.value;
}

/**
 * One app's spend by the person behind each request (Claude Code's `metadata.user_id`, the OpenAI
 * SDKs' `user`): the admin API's `usage?groupBy=endUser&app=`, read one app at a time.
 */
export const people: ViewLoader = async (range, section) => {
  const apps = await getJson<AppsAnswer>('apps');
  const app = pickApp(section.querySelector<HTMLSelectElement>('select.app-pick'), apps.apps);
  if (app === undefined) return [element('p', { class: 'empty' }, 'No app yet.')];
  const usage = await getJson<UsageAnswer>('usage', { from: range.from, groupBy: 'endUser', app });
  const rows = [...usage.rows].sort((a, b) => b.costUsd - a.costUsd || b.requests - a.requests);
  const top = rows.slice(0, TOP);
  const chart = horizontalBars(
    top.map((r) => r.endUser ?? NOBODY),
    new Map([['Cost (USD)', top.map((r) => r.costUsd)]]),
    'Cost (USD)',
  );
  const named = rows.filter((r) => r.endUser !== null && r.endUser !== undefined).length;
  return [
    tiles(
      usage,
      tile('People', formatCount(named), 'people-count', named),
      tile(`Cost of ${app}`, formatUsd(usage.totals.costUsd), 'people-total-cost', usage.totals.costUsd),
    ),
    rows.length === 0
      ? element('p', { class: 'empty' }, `No request of ${app} in this range.`)
      : drawChart(`Horizontal bar chart: the people who cost most in app ${app}, ${range.label}`, chart),
    element(
      'div',
      { 'data-testid': 'people-spend' },
      table(
        `Spend by end user in app ${app}, ${range.label}`,
        ['end user', 'requests', 'failed', 'tokens in', 'tokens out', 'cost'],
        rows.map((r) => [
          r.endUser ?? NOBODY,
          formatCount(r.requests),
          formatCount(r.errors),
          formatCount(r.tokensIn),
          formatCount(r.tokensOut),
          formatUsd(r.costUsd),
        ]),
      ),
    ),
  ];
};
