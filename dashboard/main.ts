import { caches } from './cache-view.ts';
import { destroyCharts } from './charts.ts';
import { element } from './dom.ts';
import { guardrails } from './guardrails-view.ts';
import { people } from './people-view.ts';
import { teams } from './teams-view.ts';
import { tools } from './tools-view.ts';
import * as views from './views.ts';

const HOUR = 3_600_000;
const RANGES: Record<string, { ms: number; bucket: 'hour' | 'day'; label: string }> = {
  '24h': { ms: 24 * HOUR, bucket: 'hour', label: 'last 24 hours' },
  '7d': { ms: 7 * 24 * HOUR, bucket: 'day', label: 'last 7 days' },
  '30d': { ms: 30 * 24 * HOUR, bucket: 'day', label: 'last 30 days' },
  '90d': { ms: 90 * 24 * HOUR, bucket: 'day', label: 'last 90 days' },
};
const LOADERS: Record<string, views.ViewLoader> = {
  cost: views.cost,
  tokens: views.tokens,
  caches,
  errors: views.errors,
  latency: views.latency,
  refusals: views.refusals,
  tools,
  apps: views.apps,
  teams,
  people,
  guardrails,
  failures: views.failures,
};

/** Loads one view for the range its picker shows; a later load of the same view wins. */
async function load(section: HTMLElement): Promise<void> {
  const name = section.dataset.view ?? '';
  const loader = LOADERS[name];
  const body = section.querySelector<HTMLElement>('.view-body');
  const picked = section.querySelector<HTMLSelectElement>('select.range')?.value ?? '7d';
  const range = RANGES[picked] ?? (RANGES['7d'] as (typeof RANGES)[string]);
  if (loader === undefined || body === null) return;
  const ticket = String(Number(section.dataset.ticket ?? '0') + 1);
  section.dataset.ticket = ticket;
  section.setAttribute('aria-busy', 'true');
  try {
    const from = new Date(Date.now() - range.ms).toISOString();
    const nodes = await loader({ from, bucket: range.bucket, label: range.label }, section);
    if (section.dataset.ticket !== ticket) return;
    destroyCharts(body);
    body.replaceChildren(...nodes);
    section.dataset.loaded = 'true';
  } catch (error) {
    if (section.dataset.ticket !== ticket) return;
    body.replaceChildren(
      element('p', { class: 'error', role: 'alert' }, `Could not load: ${(error as Error).message}`),
    );
  } finally {
    if (section.dataset.ticket === ticket) section.removeAttribute('aria-busy');
  }
}

for (const section of document.querySelectorAll<HTMLElement>('section.view')) {
  for (const select of section.querySelectorAll('select'))
    select.addEventListener('change', () => void load(section));
  void load(section);
}
