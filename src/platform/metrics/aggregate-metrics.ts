import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client';

/** One registry's metrics as prom-client's getMetricsAsJSON gives them (what crosses IPC). */
export type CollectedMetricJson = MetricObjectWithValues<MetricValue<string>>;

/**
 * Gauges that say a state every worker shares (a circuit's, a rest, Redis's counting mode): the
 * instance's value is the highest any worker reports, not their sum. Counters, histograms and the
 * other gauges (calls in flight, records waiting, memory) add up over the workers.
 */
const STATE_GAUGES = new Set([
  'gateway_circuit_state',
  'gateway_deployment_resting',
  'gateway_shared_counting',
  'gateway_shared_counting_outages',
]);

/** The Prometheus text of several workers' registries as one instance (CONTRACT 6.8). */
export async function aggregateMetrics(workers: readonly CollectedMetricJson[][]): Promise<string> {
  const marked = workers.map((metrics) =>
    metrics.map((metric) =>
      STATE_GAUGES.has(metric.name) ? { ...metric, aggregator: 'max' as const } : metric,
    ),
  );
  return AggregatorRegistry.aggregate(marked as Parameters<typeof AggregatorRegistry.aggregate>[0]).metrics();
}
