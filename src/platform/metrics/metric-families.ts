/**
 * Metric families whose hot path is a Map lookup per label and an addition. prom-client's own Counter and
 * Histogram hash the label object on every update (and `labels()` only binds it, so a "child"
 * hashes too); a gateway request updates half a dozen series, so the gateway keeps its series
 * here and hands prom-client's registry only the values, at scrape time (`get`, the interface
 * prom-client's Registry reads).
 */

import { SeriesIndex } from './series-index.ts';

type Labels = Record<string, string>;

export interface MetricValue {
  labels: Labels;
  value: number;
  metricName?: string;
}

/** What prom-client's Registry reads of a metric. */
export interface CollectedMetric {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  values: MetricValue[];
  aggregator: 'sum';
}

export interface MetricFamily {
  readonly name: string;
  get(): CollectedMetric | Promise<CollectedMetric>;
}

/**
 * Series per family at most. Label values come from bounded sets (apps, slots, models the
 * configuration or the price data knows, status codes: the gateway maps anything else to `other`),
 * and this is the backstop whatever a caller sends: past the cap, new label sets are counted in one
 * series whose every label is `other`, so memory and the scrape stay bounded.
 */
export const MAX_SERIES_PER_FAMILY = 2_000;

function labelsOf(names: readonly string[], values: readonly string[]): Labels {
  const labels: Labels = {};
  for (let i = 0; i < names.length; i++) labels[names[i] as string] = values[i] ?? '';
  return labels;
}

export class CounterSeries {
  value = 0;
  readonly labels: Labels;
  constructor(labels: Labels) {
    this.labels = labels;
  }
  inc(amount = 1): void {
    this.value += amount;
  }
}

export class CounterFamily implements MetricFamily {
  readonly #series: SeriesIndex<CounterSeries>;
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  /** Series hold whole units of 1/divisor (exact sums of decimal amounts); scraped divided. */
  readonly divisor: number;
  constructor(name: string, help: string, labelNames: readonly string[], divisor = 1) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
    this.divisor = divisor;
    this.#series = new SeriesIndex(
      labelNames.length,
      MAX_SERIES_PER_FAMILY,
      (values) => new CounterSeries(labelsOf(labelNames, values)),
    );
  }

  /** The series of these label values (in `labelNames` order), created on first use. */
  series(values: readonly string[]): CounterSeries {
    return this.#series.series(values);
  }

  get(): CollectedMetric {
    const values: MetricValue[] = [];
    for (const series of this.#series.values())
      values.push({ labels: series.labels, value: series.value / this.divisor });
    return { name: this.name, help: this.help, type: 'counter', values, aggregator: 'sum' };
  }
}

export class HistogramSeries {
  /** Observations per bucket, not cumulative (made cumulative at scrape time). */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  readonly labels: Labels;
  readonly buckets: readonly number[];
  constructor(labels: Labels, buckets: readonly number[]) {
    this.labels = labels;
    this.buckets = buckets;
    this.counts = new Float64Array(buckets.length);
  }

  observe(value: number): void {
    const buckets = this.buckets;
    let i = 0;
    while (i < buckets.length && value > (buckets[i] as number)) i++;
    if (i < buckets.length) this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += value;
    this.count++;
  }
}

export class HistogramFamily implements MetricFamily {
  readonly #series: SeriesIndex<HistogramSeries>;
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly buckets: readonly number[];
  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
    this.buckets = buckets;
    this.#series = new SeriesIndex(
      labelNames.length,
      MAX_SERIES_PER_FAMILY,
      (values) => new HistogramSeries(labelsOf(labelNames, values), buckets),
    );
  }

  /** The series of these label values (in `labelNames` order), created on first use. */
  series(values: readonly string[]): HistogramSeries {
    return this.#series.series(values);
  }

  get(): CollectedMetric {
    const values: MetricValue[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const series of this.#series.values()) {
      let cumulative = 0;
      for (let i = 0; i < this.buckets.length; i++) {
        cumulative += series.counts[i] as number;
        values.push({
          metricName: bucketName,
          labels: { ...series.labels, le: String(this.buckets[i]) },
          value: cumulative,
        });
      }
      values.push({ metricName: bucketName, labels: { ...series.labels, le: '+Inf' }, value: series.count });
      values.push({ metricName: `${this.name}_sum`, labels: series.labels, value: series.sum });
      values.push({ metricName: `${this.name}_count`, labels: series.labels, value: series.count });
    }
    return { name: this.name, help: this.help, type: 'histogram', values, aggregator: 'sum' };
  }
}

/** A gauge read when scraped: `read` answers its series as label values and a number. */
export type GaugeReading = readonly (readonly [readonly string[], number])[];

export class CollectedGauge implements MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly read: () => GaugeReading | Promise<GaugeReading>;
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    read: () => GaugeReading | Promise<GaugeReading>,
  ) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
    this.read = read;
  }

  async get(): Promise<CollectedMetric> {
    const values = (await this.read()).map(([labelValues, value]) => ({
      labels: labelsOf(this.labelNames, labelValues),
      value,
    }));
    return { name: this.name, help: this.help, type: 'gauge', values, aggregator: 'sum' };
  }
}
