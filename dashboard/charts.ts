import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  type ChartDataset,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';
import { element } from './dom.ts';
import { formatPercent } from './format.ts';

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Legend,
  Tooltip,
);
Chart.defaults.animation = false;
Chart.defaults.font.family = 'system-ui, sans-serif';
Chart.defaults.color = '#1f2328';

/** Okabe–Ito colours (distinguishable with colour-blindness), yellow left out for contrast on white. */
export const PALETTE = [
  '#0072B2',
  '#D55E00',
  '#009E73',
  '#CC79A7',
  '#56B4E9',
  '#E69F00',
  '#000000',
  '#999999',
];

const charts = new WeakMap<HTMLElement, Chart>();

/**
 * Draws a chart in a canvas whose role and label describe it to assistive technology (the exact
 * numbers are in the data table beside it). Returns the wrapper to place in the view.
 */
export function drawChart(label: string, config: ChartConfiguration): HTMLElement {
  const canvas = element('canvas', { role: 'img', 'aria-label': label });
  const wrapper = element('div', { class: 'chart' }, canvas);
  const chart = new Chart(canvas, {
    ...config,
    options: { responsive: true, maintainAspectRatio: false, ...config.options },
  });
  charts.set(wrapper, chart);
  return wrapper;
}

/** Stacked bars: one dataset per series (app, model, limit…) over the time buckets. */
export function stackedBars(
  labels: string[],
  series: Map<string, number[]>,
  axisTitle: string,
): ChartConfiguration<'bar'> {
  const datasets: ChartDataset<'bar'>[] = [...series].map(([name, data], i) => ({
    label: name,
    data,
    backgroundColor: PALETTE[i % PALETTE.length] as string,
  }));
  return {
    type: 'bar',
    data: { labels, datasets },
    options: {
      scales: {
        x: { stacked: true },
        y: { stacked: true, beginAtZero: true, title: { display: true, text: axisTitle } },
      },
    },
  };
}

/** Bars along the x axis, one per label (a ranking: teams, people, guards), titled on the value axis. */
export function horizontalBars(
  labels: string[],
  series: Map<string, number[]>,
  axisTitle: string,
): ChartConfiguration<'bar'> {
  const config = stackedBars(labels, series, axisTitle);
  config.options = {
    indexAxis: 'y',
    plugins: { legend: { display: series.size > 1 } },
    scales: {
      x: { stacked: true, beginAtZero: true, title: { display: true, text: axisTitle } },
      y: { stacked: true },
    },
  };
  return config;
}

export function lines(
  labels: string[],
  series: { label: string; data: (number | null)[] }[],
  axisTitle: string,
): ChartConfiguration<'line'> {
  return {
    type: 'line',
    data: {
      labels,
      datasets: series.map((s, i) => ({
        label: s.label,
        data: s.data,
        borderColor: PALETTE[i % PALETTE.length] as string,
        backgroundColor: PALETTE[i % PALETTE.length] as string,
        borderDash: i === 1 ? [6, 3] : [],
        spanGaps: true,
      })),
    },
    options: { scales: { y: { beginAtZero: true, title: { display: true, text: axisTitle } } } },
  };
}

/** Shows a line chart of rates (0 to 1) in percent: the axis and tooltips format, the data stay the API's. */
export function percentLines(config: ChartConfiguration<'line'>): ChartConfiguration<'line'> {
  const percent = (value: number | string) => formatPercent(Number(value));
  return {
    ...config,
    options: {
      ...config.options,
      // The axis keeps the title `lines` gave it.
      scales: { y: { ...config.options?.scales?.['y'], ticks: { callback: percent } } },
      plugins: {
        tooltip: { callbacks: { label: (item) => `${item.dataset.label}: ${percent(item.parsed.y ?? 0)}` } },
      },
    },
  };
}

/** Removes the charts of a view before it is drawn again. */
export function destroyCharts(root: HTMLElement): void {
  for (const wrapper of root.querySelectorAll<HTMLElement>('.chart')) charts.get(wrapper)?.destroy();
}
