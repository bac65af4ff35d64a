import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Clock } from '../../src/platform/clock.ts';
import { APP, SECRET, shareGateway, startGateway } from '../helpers/gateway-harness.ts';
import { clockAtMinuteStart } from '../helpers/minute-clock.ts';

/**
 * The response cache's rules and books (CONTRACT 5.5): one app never reads another's entry, an
 * answer larger than an entry may be is not kept, an entry lives its TTL, apps and routes turn it
 * on and off, a hit counts toward request limits but not tokens, and each hit is a ledger row with
 * cost 0 and the cost it saved, which /v1/usage and the admin API sum.
 */

const OTHER = { 'x-gateway-app': 'other', 'x-gateway-secret': 'other-secret-0123456789' };
const APPS = `${APP}:${SECRET},other:other-secret-0123456789`;
const ADMIN_TOKEN = 'admin-token-for-the-tests-0123';
const ask = (content: string, extra: Record<string, unknown> = {}) => ({
  messages: [{ role: 'user', content }],
  ...extra,
});

/** The real time, moved on by the test: an entry's TTL passes without waiting. */
class MovableClock implements Clock {
  #ahead = 0;
  now(): number {
    return Date.now() + this.#ahead;
  }
  monotonic(): number {
    return performance.now();
  }
  advance(ms: number): void {
    this.#ahead += ms;
  }
}

describe('response cache: apps, bounds and routes', () => {
  const gw = shareGateway({
    env: { GATEWAY_APPS: APPS },
    file: {
      routing: { tasks: { summarize: [{ provider: 'provider-a' }], chatty: [{ provider: 'provider-a' }] } },
      responseCache: {
        enabled: true,
        maxEntryBytes: 400,
        routes: { tasks: { chatty: { enabled: false } } },
        apps: { other: { ttlSeconds: 60 } },
      },
    },
  });

  it('two apps, the same prompt: each app has its own entry', async () => {
    const body = ask('the same prompt for two apps', { maxTokens: 5 });
    const calls = gw.calls.length;
    assert.equal((await gw.chat(body)).headers['x-gateway-cache'], 'miss');
    const other = await gw.chat(body, { auth: false, headers: OTHER });
    assert.equal(other.headers['x-gateway-cache'], 'miss', "never the first app's entry");
    assert.equal(gw.calls.length, calls + 2);
    assert.equal((await gw.chat(body, { auth: false, headers: OTHER })).headers['x-gateway-cache'], 'hit');
    assert.equal((await gw.chat(body)).headers['x-gateway-cache'], 'hit');
    assert.equal(gw.calls.length, calls + 2);
  });

  it('an answer larger than maxEntryBytes is not kept; a smaller one is', async () => {
    // An entry is the answer's text and about 230 bytes of provider, model, finish reason and usage.
    const long = ask('write at length about the sea', { maxTokens: 1500 });
    const first = await gw.chat(long);
    assert.ok(Buffer.byteLength(first.body.message.content) > 200, 'the entry passes 400 bytes');
    assert.equal((await gw.chat(long)).headers['x-gateway-cache'], 'miss');
    const short = ask('hi', { maxTokens: 5 });
    assert.ok(Buffer.byteLength((await gw.chat(short)).body.message.content) < 50);
    assert.equal((await gw.chat(short)).headers['x-gateway-cache'], 'hit');
  });

  it("a route's setting turns it off for that task; others keep the default", async () => {
    const off = ask('on the chatty route', { task: 'chatty' });
    assert.equal((await gw.chat(off)).headers['x-gateway-cache'], undefined);
    assert.equal((await gw.chat(off)).headers['x-gateway-cache'], undefined);
    const on = ask('on the summarize route', { task: 'summarize', maxTokens: 5 });
    await gw.chat(on);
    assert.equal((await gw.chat(on)).headers['x-gateway-cache'], 'hit');
  });

  it('an upstream failure is not kept', async () => {
    const failing = ask('fail me', {
      metadata: { simulated: { fault: 'bad_request' } },
      provider: 'provider-a',
    });
    assert.equal((await gw.chat(failing)).status, 502);
    const again = await gw.chat(failing);
    assert.equal(again.status, 502);
    assert.equal(again.headers['x-gateway-cache'], 'miss');
  });
});

describe('response cache: an app turned on alone', () => {
  const gw = shareGateway({
    env: { GATEWAY_APPS: APPS },
    file: { responseCache: { apps: { other: { enabled: true } } } },
  });

  it('caches that app only', async () => {
    const body = ask('only the other app caches');
    await gw.chat(body, { auth: false, headers: OTHER });
    assert.equal((await gw.chat(body, { auth: false, headers: OTHER })).headers['x-gateway-cache'], 'hit');
    assert.equal((await gw.chat(body)).headers['x-gateway-cache'], undefined);
  });
});

describe('response cache: TTL', () => {
  it('an entry is served for its TTL, then the request goes upstream again', async (t) => {
    const clock = new MovableClock();
    const gw = await startGateway(t, { clock, file: { responseCache: { enabled: true, ttlSeconds: 60 } } });
    const body = ask('expire me');
    await gw.chat(body);
    clock.advance(59_000);
    assert.equal((await gw.chat(body)).headers['x-gateway-cache'], 'hit');
    clock.advance(2_000);
    const calls = gw.calls.length;
    assert.equal((await gw.chat(body)).headers['x-gateway-cache'], 'miss');
    assert.equal(gw.calls.length, calls + 1);
    assert.equal((await gw.chat(body)).headers['x-gateway-cache'], 'hit', 'kept again for another TTL');
  });
});

describe('response cache: limits', () => {
  it('a hit counts toward the requests per minute, never toward tokens', async (t) => {
    const gw = await startGateway(t, {
      clock: clockAtMinuteStart(),
      file: {
        responseCache: { enabled: true },
        limits: { apps: { [APP]: { requestsPerMinute: 3, tokensPerMinute: 115 } } },
      },
    });
    const cached = ask('tokens budget test', { maxTokens: 100 });
    assert.equal((await gw.chat(cached)).status, 200);
    // The first answer took tokens: another prompt's reservation no longer fits the minute.
    const refused = await gw.chat(
      ask('a different question that is much longer than the first one', { maxTokens: 100 }),
    );
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.details.limit, 'tokens per minute');
    const hit = await gw.chat(cached);
    assert.equal(hit.status, 200, 'the tokens limit does not refuse a hit');
    assert.equal(hit.headers['x-gateway-cache'], 'hit');
    assert.equal(hit.headers['x-ratelimit-remaining-requests'], '1');
    assert.equal((await gw.chat(cached)).status, 200);
    const over = await gw.chat(cached);
    assert.equal(over.status, 429, 'the fourth request of the minute');
    assert.equal(over.body.error.details.limit, 'requests per minute');
  });
});

describe('response cache: the books', () => {
  const gw = shareGateway({
    env: { ADMIN_TOKEN },
    file: { responseCache: { enabled: true } },
  });

  it('a hit is a ledger row with cache_hit, cost 0 and the cost saved; /v1/usage and the admin API sum them', async () => {
    const body = ask('keep the books');
    const miss = await gw.chat(body);
    const hits = [await gw.chat(body), await gw.stream(body)];
    assert.deepEqual(
      hits.map((h) => h.headers['x-gateway-cache']),
      ['hit', 'hit'],
    );
    await gw.app.recorder.flush();
    const rows = await gw.app.storage.usage.readRecords({ limit: 1000 });
    const missRow = rows.find((r) => r.id === miss.body.id);
    const hitRow = rows.find((r) => r.id === hits[0]?.body.id);
    assert.ok(missRow !== undefined && hitRow !== undefined);
    assert.equal(missRow.cacheHit, false);
    assert.equal(missRow.costSavedUsd, 0);
    assert.ok(missRow.costUsd > 0);
    assert.equal(hitRow.cacheHit, true);
    assert.equal(hitRow.costUsd, 0);
    assert.equal(hitRow.costSavedUsd, missRow.costUsd);
    assert.equal(hitRow.status, 200);
    assert.equal(hitRow.provider, missRow.provider);
    assert.equal(hitRow.model, missRow.model);
    assert.deepEqual(hitRow.attempts, [], 'no upstream call');
    assert.equal(hitRow.tokensIn + hitRow.tokensOut, 0, 'no tokens used upstream');
    const streamRow = rows.find((r) => r.cacheHit && r.operation === 'chat_stream');
    assert.equal(streamRow?.costSavedUsd, missRow.costUsd);

    const usage = await gw.get('/v1/usage');
    assert.equal(usage.body.totals.requests, 3);
    assert.equal(usage.body.totals.cacheHits, 2);
    assert.ok(Math.abs(usage.body.totals.costSavedUsd - 2 * missRow.costUsd) < 1e-9);
    assert.ok(Math.abs(usage.body.totals.costUsd - missRow.costUsd) < 1e-9);
    const admin = await gw.get('/admin/api/usage', {
      auth: false,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(admin.status, 200);
    assert.equal(admin.body.totals.cacheHits, 2);
    assert.ok(Math.abs(admin.body.totals.costSavedUsd - 2 * missRow.costUsd) < 1e-9);

    const metrics = (await gw.get('/metrics', { auth: false })).text;
    assert.match(metrics, new RegExp(`gateway_response_cache_hits_total\\{app="${APP}"\\} 2`));
    const saved = metrics.match(
      new RegExp(`gateway_response_cache_saved_usd_total\\{app="${APP}"\\} ([0-9.e-]+)`),
    );
    assert.ok(saved !== null && Math.abs(Number(saved[1]) - 2 * missRow.costUsd) < 1e-9, String(saved?.[1]));
  });
});
