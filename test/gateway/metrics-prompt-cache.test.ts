import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/load-config.ts';
import { InProcessProviderHealth } from '../../src/gateway/health/circuit-breaker.ts';
import { GatewayMetrics } from '../../src/gateway/observability/gateway-metrics.ts';
import { UNROUTED } from '../../src/gateway/services/run/request-run-labels.ts';
import { MetricsRegistry } from '../../src/platform/metrics/metrics-registry.ts';
import { sampleRecord } from '../contracts/storage-contract.ts';
import { shareGateway } from '../helpers/gateway-harness.ts';
import { type MockAnthropicServer, startMockAnthropic } from '../helpers/mock-anthropic-server.ts';
import { parsePrometheusText, sumOf } from '../helpers/prometheus-text.ts';
import { scriptedCacheUsage } from '../helpers/scripted-reply.ts';

const messages = [{ role: 'user', content: 'Summarise the repository.' }];

describe('GET /metrics: prompt-cache tokens', () => {
  let mock: MockAnthropicServer;
  before(async () => {
    mock = await startMockAnthropic({ eventDelayMs: 0 });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'anthropic', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: 'k' },
  }));
  after(() => mock.close());

  it('observes cache_read and cache_creation beside input and output, summing to the ledger', async () => {
    mock.replyNext({
      text: 'One.',
      usage: scriptedCacheUsage('anthropic', { read: 24_000, write5m: 1_000, write1h: 500 }),
    });
    assert.equal((await gw.chat({ messages })).status, 200);
    mock.replyNext({ text: 'Two.', usage: scriptedCacheUsage('anthropic', { read: 25_000 }) });
    assert.equal((await gw.stream({ messages })).events.at(-1)?.event, 'done');
    mock.replyNext({ text: 'Three.', usage: scriptedCacheUsage('anthropic', {}) });
    assert.equal((await gw.chat({ messages })).status, 200);

    await gw.app.recorder.flush();
    const rows = await gw.app.storage.usage.readRecords({ limit: 10 });
    assert.equal(rows.length, 3);
    const samples = parsePrometheusText((await gw.get('/metrics', { auth: false })).text);
    const tokens = (type: string, suffix = 'sum') =>
      sumOf(samples, `gen_ai_client_token_usage_${suffix}`, {
        gen_ai_token_type: type,
        gen_ai_provider_name: 'anthropic',
      });
    const ledger = (pick: (row: (typeof rows)[number]) => number) =>
      rows.reduce((sum, row) => sum + pick(row), 0);
    assert.equal(tokens('cache_read'), 49_000);
    assert.equal(
      tokens('cache_read'),
      ledger((row) => row.cacheReadTokens),
    );
    assert.equal(tokens('cache_creation'), 1_500);
    assert.equal(
      tokens('cache_creation'),
      ledger((row) => row.cacheWrite5mTokens + row.cacheWrite1hTokens),
    );
    // input still counts every input token, the cached ones included, as the conventions say.
    assert.equal(
      tokens('input'),
      ledger((row) => row.tokensIn),
    );
    assert.ok(tokens('input') > tokens('cache_read') + tokens('cache_creation'));
    // Observed for the calls that had some: _count says how many calls read from the cache.
    assert.deepEqual(
      [tokens('cache_read', 'count'), tokens('cache_creation', 'count'), tokens('input', 'count')],
      [2, 1, 3],
    );
  });
});

describe('GatewayMetrics: response-cache hits', () => {
  function metrics() {
    const config = loadConfig({}, []);
    const registry = new MetricsRegistry();
    const gateway = new GatewayMetrics(registry, {
      config,
      health: new InProcessProviderHealth(config.circuit),
      ledgerPending: () => 0,
      sharedCounting: () => undefined,
      now: () => Date.now(),
      balancer: { inFlightOf: () => 0, isResting: () => false },
    });
    return { gateway, scrape: async () => parsePrometheusText(await registry.text()) };
  }

  it('counts hits and the cost they saved by app, from the ledger record, to the 1e-10 dollar', async () => {
    const { gateway, scrape } = metrics();
    const before = await scrape();
    assert.equal(sumOf(before, 'gateway_response_cache_hits_total'), 0);
    const hit = (id: string, app: string, saved: number) =>
      sampleRecord(id, { app, cacheHit: true, costUsd: 0, costSavedUsd: saved, attempts: [] });
    gateway.finished(hit('h1', 'web', 0.0001234567), UNROUTED);
    gateway.finished(hit('h2', 'web', 0.0000000001), UNROUTED);
    gateway.finished(hit('h3', 'batch', 0.5), UNROUTED);
    gateway.finished(sampleRecord('miss', { app: 'web' }), UNROUTED);
    const samples = await scrape();
    assert.equal(sumOf(samples, 'gateway_response_cache_hits_total', { app: 'web' }), 2);
    assert.equal(sumOf(samples, 'gateway_response_cache_hits_total', { app: 'batch' }), 1);
    assert.equal(
      Math.round(sumOf(samples, 'gateway_response_cache_saved_usd_total', { app: 'web' }) * 1e10),
      1234567 + 1,
    );
    assert.equal(sumOf(samples, 'gateway_response_cache_saved_usd_total', { app: 'batch' }), 0.5);
    // A hit is still a request.
    assert.equal(sumOf(samples, 'gateway_requests_total', { app: 'web' }), 3);
  });
});
