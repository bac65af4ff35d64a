import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { APP, AUTH, shareGateway, startGateway } from '../helpers/gateway-harness.ts';
import { postMcp, rpc } from '../helpers/mcp-http.ts';
import { clockAtMinuteStart } from '../helpers/minute-clock.ts';
import { parsePrometheusText, sumOf } from '../helpers/prometheus-text.ts';

const messages = [{ role: 'user', content: 'count me exactly' }];
const LIMITED = { 'x-gateway-app': 'limited', 'x-gateway-secret': 'limited-secret-0123456789' };
const fault = (simulated: Record<string, unknown>) => ({ metadata: { simulated } });

describe('GET /metrics after a known mix of requests', () => {
  const gw = shareGateway({
    env: {
      SURFACES: 'gateway,site',
      GATEWAY_APPS: `${APP}:test-secret-0123456789,limited:${LIMITED['x-gateway-secret']}`,
    },
    file: {
      routing: { chat: [{ provider: 'provider-a' }, { provider: 'provider-b' }] },
      prices: { 'simulated-chat': { inputPerMTok: 3, outputPerMTok: 15 } },
      limits: { apps: { limited: { requestsPerMinute: 1 } } },
    },
    // The limited app's two requests fall in one minute's window.
    clock: clockAtMinuteStart(),
  });

  it('counts requests, attempts, tokens and cost exactly as the ledger records them', async () => {
    const answers: { usage: { tokensIn: number; tokensOut: number; estimatedCost: number } }[] = [];
    answers.push((await gw.chat({ messages })).body);
    const stream = await gw.stream({ messages });
    answers.push(stream.events.at(-1)?.data as (typeof answers)[number]);
    answers.push((await gw.embed({ input: ['one', 'two'] })).body);
    answers.push(
      (await gw.json({ messages, schema: { type: 'object', properties: { a: { type: 'string' } } } })).body,
    );
    // A retry that succeeds (one 429, then an answer from the same slot), and a fallback (provider-a
    // fails every retry, provider-b answers).
    answers.push((await gw.chat({ messages, ...fault({ fault: 'rate_limited', faultAttempts: 1 }) })).body);
    const fallback = await gw.chat({ messages, ...fault({ fault: 'overloaded', slots: ['provider-a'] }) });
    assert.equal(fallback.body.provider, 'provider-b');
    answers.push(fallback.body);
    // A limit refusal: the second request of an app allowed one a minute.
    assert.equal((await gw.chat({ messages }, { headers: LIMITED })).status, 200);
    assert.equal((await gw.chat({ messages }, { headers: LIMITED })).status, 429);
    // A client that leaves mid-stream.
    await clientLeavesMidStream(gw.gateway);
    // Surface B: a newsletter signup and an MCP tool call, counted in the same registry.
    const site = gw.app.site;
    assert.ok(site);
    const signup = await site.inject({
      method: 'POST',
      url: '/api/newsletter',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'metrics@example.com' }),
    });
    assert.equal(signup.statusCode, 200, signup.body);
    const invalid = await site.inject({
      method: 'POST',
      url: '/api/newsletter',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'not an address' }),
    });
    assert.equal(invalid.statusCode, 400);
    await postMcp(site, rpc('tools/call', { name: 'site_overview', arguments: {} }));
    await postMcp(
      site,
      rpc('tools/call', { name: 'lookup_policy', arguments: { policy: 'no-such-policy' } }),
    );

    // The aborted stream's run finishes when the gateway sees the close: wait for its ledger row.
    let rows = await readRows(gw, 8);
    const metrics = await gw.get('/metrics', { auth: false });
    assert.equal(metrics.status, 200);
    assert.match(String(metrics.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const samples = parsePrometheusText(metrics.text);
    rows = await readRows(gw, 8);

    // Requests: every ledger row, plus the refusal that never ran.
    assert.equal(sumOf(samples, 'gateway_requests_total'), rows.length + 1);
    assert.equal(sumOf(samples, 'gateway_requests_total', { status: '200' }), 7);
    assert.equal(sumOf(samples, 'gateway_requests_total', { status: '499', operation: 'chat_stream' }), 1);
    assert.equal(sumOf(samples, 'gateway_requests_total', { status: '429', app: 'limited' }), 1);
    assert.equal(sumOf(samples, 'gateway_requests_total', { front_door: 'native', operation: 'embed' }), 1);
    assert.equal(sumOf(samples, 'gateway_requests_total', { provider: 'provider-b', status: '200' }), 1);
    assert.equal(
      sumOf(samples, 'gateway_limit_refusals_total', { app: 'limited', limit: 'requests_per_minute' }),
      1,
    );
    assert.equal(sumOf(samples, 'gateway_request_duration_seconds_count'), rows.length);

    // Attempts: one per ledger attempt row, by outcome.
    const attempts = rows.flatMap((row) => row.attempts);
    assert.equal(sumOf(samples, 'gateway_upstream_attempts_total'), attempts.length);
    for (const outcome of new Set(attempts.map((a) => a.outcome)))
      assert.equal(
        sumOf(samples, 'gateway_upstream_attempts_total', { outcome }),
        attempts.filter((a) => a.outcome === outcome).length,
        outcome,
      );
    assert.equal(
      sumOf(samples, 'gateway_upstream_attempts_total', { provider: 'provider-a', outcome: 'http_429' }),
      1,
    );
    const failover = rows.find((row) => row.id === fallback.body.id)?.attempts ?? [];
    const failedOutcome = failover[0]?.outcome ?? 'none';
    assert.deepEqual(
      failover.map((a) => `${a.provider}:${a.outcome}`),
      [1, 2, 3].map(() => `provider-a:${failedOutcome}`).concat('provider-b:ok'),
    );
    assert.equal(
      sumOf(samples, 'gateway_upstream_attempts_total', { provider: 'provider-a', outcome: failedOutcome }),
      3,
    );
    assert.equal(sumOf(samples, 'gen_ai_client_operation_duration_seconds_count'), attempts.length);
    assert.equal(
      sumOf(samples, 'gen_ai_client_operation_duration_seconds_count', { error_type: failedOutcome }),
      3,
    );

    // Tokens and cost: the ledger's sums exactly, and those of the answers the clients read.
    const ledgerIn = rows.reduce((sum, row) => sum + row.tokensIn, 0);
    const ledgerOut = rows.reduce((sum, row) => sum + row.tokensOut, 0);
    assert.ok(ledgerIn > 0 && ledgerOut > 0);
    assert.equal(sumOf(samples, 'gen_ai_client_token_usage_sum', { gen_ai_token_type: 'input' }), ledgerIn);
    assert.equal(sumOf(samples, 'gen_ai_client_token_usage_sum', { gen_ai_token_type: 'output' }), ledgerOut);
    const answered = rows.filter((row) => row.status === 200 && row.app === APP);
    assert.equal(
      answered.reduce((sum, row) => sum + row.tokensIn, 0),
      answers.reduce((sum, answer) => sum + answer.usage.tokensIn, 0),
    );
    assert.equal(
      sumOf(samples, 'gen_ai_client_token_usage_sum', {
        gen_ai_token_type: 'input',
        gen_ai_operation_name: 'embeddings',
        gen_ai_provider_name: 'simulated',
      }),
      (answers[2] as (typeof answers)[number]).usage.tokensIn,
    );
    // The ledger rounds each cost to 1e-10 dollars; their exact sum, in those units.
    const ledgerCost = rows.reduce((sum, row) => sum + Math.round(row.costUsd * 1e10), 0);
    assert.ok(ledgerCost > 0);
    assert.equal(Math.round(sumOf(samples, 'gateway_cost_usd_total') * 1e10), ledgerCost);
    assert.equal(sumOf(samples, 'gateway_time_to_first_token_seconds_count'), 2);

    // Gauges read when scraped, and surface B's counters.
    assert.equal(sumOf(samples, 'gateway_circuit_state', { provider: 'provider-a', state: 'closed' }), 1);
    assert.equal(sumOf(samples, 'gateway_circuit_state', { provider: 'provider-a', state: 'open' }), 0);
    assert.equal(sumOf(samples, 'gateway_ledger_records_waiting'), 0);
    assert.equal(sumOf(samples, 'site_newsletter_signups_total', { outcome: 'accepted' }), 1);
    assert.equal(sumOf(samples, 'site_newsletter_signups_total', { outcome: 'invalid' }), 1);
    assert.equal(sumOf(samples, 'site_mcp_tool_calls_total', { tool: 'site_overview', outcome: 'ok' }), 1);
    assert.equal(sumOf(samples, 'site_mcp_tool_calls_total', { tool: 'lookup_policy', outcome: 'error' }), 1);
    assert.ok(sumOf(samples, 'process_resident_memory_bytes') > 0, 'process metrics');

    // Never a prompt, an answer or a secret in a label.
    assert.doesNotMatch(metrics.text, /count me exactly|test-secret|metrics@example\.com/);
  });
});

describe('GET /metrics and the circuit breaker', () => {
  it('shows an open circuit and counts the candidates skipped for it', async (t) => {
    const gw = await startGateway(t, {
      file: {
        routing: { chat: [{ provider: 'provider-a' }, { provider: 'provider-b' }] },
        circuit: { failureThreshold: 3, cooldownMs: 60_000 },
      },
    });
    const scrape = async () => parsePrometheusText((await gw.get('/metrics', { auth: false })).text);
    const before = await scrape();
    assert.equal(sumOf(before, 'gateway_circuit_state', { provider: 'provider-a', state: 'closed' }), 1);
    await gw.chat({ messages, ...fault({ fault: 'server_error', slots: ['provider-a'] }) });
    assert.equal((await gw.chat({ messages })).body.provider, 'provider-b');
    const after = await scrape();
    assert.equal(sumOf(after, 'gateway_circuit_state', { provider: 'provider-a', state: 'open' }), 1);
    assert.equal(sumOf(after, 'gateway_circuit_state', { provider: 'provider-a', state: 'closed' }), 0);
    assert.equal(sumOf(after, 'gateway_circuit_state', { provider: 'provider-b', state: 'closed' }), 1);
    assert.equal(sumOf(after, 'gateway_upstream_skipped_total', { provider: 'provider-a' }), 1);
  });
});

describe('GET /metrics with REDIS_URL', () => {
  it('shows limits counting in Redis (shared) and no outage', async (t) => {
    const gw = await startGateway(t, {
      env: {
        REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
        REDIS_KEY_PREFIX: `metrics-test-${process.pid}-${Date.now()}:`,
      },
    });
    const samples = parsePrometheusText((await gw.get('/metrics', { auth: false })).text);
    assert.equal(sumOf(samples, 'gateway_shared_counting', { mode: 'shared' }), 1);
    assert.equal(sumOf(samples, 'gateway_shared_counting', { mode: 'local' }), 0);
    assert.equal(sumOf(samples, 'gateway_shared_counting_outages'), 0);
  });
});

describe('GET /metrics access', () => {
  it('asks for the bearer token when METRICS_TOKEN is set', async (t) => {
    const token = 'metrics-token-0123456789';
    const gw = await startGateway(t, { env: { METRICS_TOKEN: token } });
    const none = await gw.get('/metrics', { auth: false });
    assert.equal(none.status, 401);
    assert.equal(none.body.error.code, 'unauthorized');
    const wrong = await gw.get('/metrics', { auth: false, headers: { authorization: `Bearer ${token}x` } });
    assert.equal(wrong.status, 401);
    const right = await gw.get('/metrics', { auth: false, headers: { authorization: `Bearer ${token}` } });
    assert.equal(right.status, 200);
    assert.match(right.text, /# TYPE gateway_requests_total counter/);
  });

  it('is not served, and nothing is counted, with METRICS_ENABLED=false', async (t) => {
    const gw = await startGateway(t, { env: { METRICS_ENABLED: 'false' } });
    assert.equal((await gw.chat({ messages })).status, 200);
    assert.equal((await gw.get('/metrics', { auth: false })).status, 404);
  });
});

async function readRows(gw: ReturnType<typeof shareGateway>, expected: number) {
  for (let tries = 0; ; tries++) {
    await gw.app.recorder.flush();
    const rows = await gw.app.storage.usage.readRecords({ limit: 100 });
    if (rows.length >= expected || tries > 100) return rows;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function clientLeavesMidStream(gateway: ReturnType<typeof shareGateway>['gateway']): Promise<void> {
  await gateway.listen({ port: 0, host: '127.0.0.1' });
  const { port } = gateway.server.address() as { port: number };
  const agent = new Agent();
  const res = await request(`http://127.0.0.1:${port}/v1/chat`, {
    method: 'POST',
    dispatcher: agent,
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ messages, stream: true, maxTokens: 200, ...fault({ chunkDelayMs: 50 }) }),
  });
  for await (const _chunk of res.body) break;
  res.body.destroy();
  await agent.destroy();
}
