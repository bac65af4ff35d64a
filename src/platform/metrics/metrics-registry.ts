import { collectDefaultMetrics, Registry } from 'prom-client';
import type { CollectedMetricJson } from './aggregate-metrics.ts';
import type { MetricFamily } from './metric-families.ts';

/**
 * The process metrics (CPU, memory, event loop, GC, handles: prom-client's default set), in one
 * registry per process however many applications it builds: they describe the process, and each
 * `collectDefaultMetrics` adds observers of its own.
 */
let processRegistry: Registry | undefined;
const SUMS_NAMED_LIKE_COUNTERS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
    // Gauges named like counters, which `promtool check metrics` rejects; each is the sum of the
    // by-type gauge of the same name without `_total` (nodejs_active_handles{type}), so nothing is lost.
    for (const name of SUMS_NAMED_LIKE_COUNTERS) processRegistry.removeSingleMetric(name);
  }
  return processRegistry;
}

/**
 * The metrics of one application (both surfaces register here) plus the process's. Tests build
 * several applications in one process; each counts its own requests.
 */
export class MetricsRegistry {
  readonly #registry = new Registry();
  /** In a worker of several (CONTRACT 6.8): the whole instance's text, gathered by the primary. */
  #instance: (() => Promise<string>) | undefined;

  constructor() {
    // Started with the first registry, so GC and event-loop figures cover the time before the first scrape.
    processMetrics();
  }

  add<T extends MetricFamily>(family: T): T {
    // prom-client's Registry takes any object with a name and a `get` in its format.
    this.#registry.registerMetric(family as unknown as Parameters<Registry['registerMetric']>[0]);
    return family;
  }

  get contentType(): string {
    return this.#registry.contentType;
  }

  /** Makes `text()` answer for the whole instance: `gather` asks the primary for every worker's. */
  answerForInstance(gather: () => Promise<string>): void {
    this.#instance = gather;
  }

  /** This process's metrics, as the primary gathers them from each worker. */
  async json(): Promise<CollectedMetricJson[]> {
    const [own, process] = await Promise.all([
      this.#registry.getMetricsAsJSON(),
      processMetrics().getMetricsAsJSON(),
    ]);
    return [...own, ...process] as CollectedMetricJson[];
  }

  /** The Prometheus text exposition of everything (of every worker, in a worker of several). */
  async text(): Promise<string> {
    if (this.#instance !== undefined) return this.#instance();
    const [own, process] = await Promise.all([this.#registry.metrics(), processMetrics().metrics()]);
    return `${own}\n${process}`;
  }
}
