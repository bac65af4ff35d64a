import { loadConfig } from '../src/config/load-config.ts';
import { InProcessProviderHealth } from '../src/gateway/health/circuit-breaker.ts';
import { GatewayMetrics } from '../src/gateway/observability/gateway-metrics.ts';
import { MetricsRegistry } from '../src/platform/metrics/metrics-registry.ts';
import type { UsageRecord } from '../src/storage/ports.ts';
import { PLAIN_ATTEMPT_FIELDS, PLAIN_REQUEST_FIELDS } from '../test/helpers/plain-usage-fields.ts';

/**
 * `node bench/metrics-cost.ts`: the CPU the metrics add to one request, measured where they are
 * counted (GatewayMetrics.finished with a chat request's ledger record: one answered attempt),
 * in a loop, so a shared machine's noise matters less than in the load benchmark's on-off pair.
 */
const config = loadConfig({ DATA_DIR: ':memory:' }, []);
const metrics = new GatewayMetrics(new MetricsRegistry(), {
  config,
  health: new InProcessProviderHealth(config.circuit),
  balancer: { inFlightOf: () => 0, isResting: () => false },
  ledgerPending: () => 0,
  sharedCounting: () => undefined,
  now: Date.now,
});
const apps = ['app-a', 'app-b', 'app-c', 'app-d'];
function record(i: number): UsageRecord {
  return {
    id: `chat_${i}`,
    requestId: `req-${i}`,
    app: apps[i % apps.length] as string,
    operation: 'chat',
    frontDoor: 'native',
    task: null,
    provider: 'provider-a',
    model: 'gpt-4o-mini-2024-07-18',
    tokensIn: 20 + (i % 7),
    tokensOut: 100 + (i % 13),
    usageEstimated: false,
    costUsd: 0.0000123,
    priceSource: 'config',
    latencyMs: 12.5,
    upstreamFirstByteMs: 3,
    upstreamMs: 12,
    status: 200,
    errorCode: null,
    createdAt: Date.now(),
    ...PLAIN_REQUEST_FIELDS,
    attempts: [
      {
        attempt: 0,
        provider: 'provider-a',
        model: 'gpt-4o-mini-2024-07-18',
        tokensIn: 20,
        tokensOut: 100,
        usageEstimated: false,
        costUsd: 0.0000123,
        latencyMs: 11,
        outcome: 'ok',
        upstreamStatus: 200,
        ...PLAIN_ATTEMPT_FIELDS,
      },
    ],
  };
}
const LABELS = { route: 'default', requestedModel: 'gpt-4o-mini', requestedSlot: 'provider-a' };
const records = Array.from({ length: 1024 }, (_, i) => record(i));
const rounds: number[] = [];
for (let round = 0; round < 7; round++) {
  const n = 500_000;
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) metrics.finished(records[i & 1023] as UsageRecord, LABELS);
  const used = process.cpuUsage(start);
  rounds.push(((used.user + used.system) / n) * 1000);
}
rounds.sort((a, b) => a - b);
console.log(
  `GatewayMetrics.finished, one chat request: median ${rounds[3]?.toFixed(0)} ns CPU (rounds ${rounds[0]?.toFixed(0)}-${rounds[6]?.toFixed(0)} ns)`,
);
