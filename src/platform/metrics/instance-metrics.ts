import type { RpcPeer } from '../rpc-peer.ts';
import type { MetricsRegistry } from './metrics-registry.ts';

/** Longest GET /metrics waits for the primary to gather every worker's metrics. */
const INSTANCE_METRICS_TIMEOUT_MS = 5_000;

/**
 * In a worker of several (CONTRACT 6.8): GET /metrics, whichever worker the kernel hands it,
 * answers for the whole instance (the primary asks every worker for its registry and adds them
 * up), and this worker hands its own registry when the primary asks.
 */
export function answerMetricsForInstance(registry: MetricsRegistry, primary: RpcPeer): void {
  registry.answerForInstance(
    async () => (await primary.call('metrics', [], INSTANCE_METRICS_TIMEOUT_MS)) as string,
  );
  primary.handle('metrics.collect', () => registry.json());
}
