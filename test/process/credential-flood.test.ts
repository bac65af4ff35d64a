import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { type RunningServer, spawnServer } from '../helpers/spawn-server.ts';
import { runTimedLoad, type TimedLoadResult } from '../helpers/timed-chat-load.ts';

/** Seconds per phase; FLOOD_PHASE_SECONDS=10 gives the longer measurement. */
const PHASE_MS = Number(process.env.FLOOD_PHASE_SECONDS ?? '2') * 1000;
const ROUNDS = 3;
const REAL_CONNECTIONS = 10;
const FLOOD_CONNECTIONS = 20;
const REAL = { app: 'real', secret: 'the real app secret chosen by its operator' };
const VICTIM = { app: 'victim', secret: 'a known app name whose secret the stranger lacks' };

interface FloodCount {
  statuses: Map<number, number>;
}

/** Wrong secrets for a known app, back to back on each connection: half shaped like generated ones. */
async function flood(origin: string, until: () => boolean): Promise<FloodCount> {
  const agent = new Agent({ connections: FLOOD_CONNECTIONS });
  const count: FloodCount = { statuses: new Map() };
  const loop = async () => {
    for (let n = 0; !until(); n++) {
      const secret =
        n % 2 === 0 ? `gws_${randomBytes(32).toString('base64url')}` : randomBytes(12).toString('hex');
      try {
        const res = await request(`${origin}/v1/chat`, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${VICTIM.app}:${secret}` },
          body: JSON.stringify({ messages: [{ role: 'user', content: 'let me in' }] }),
        });
        await res.body.dump();
        count.statuses.set(res.statusCode, (count.statuses.get(res.statusCode) ?? 0) + 1);
      } catch {
        count.statuses.set(0, (count.statuses.get(0) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: FLOOD_CONNECTIONS }, loop));
  await agent.close();
  return count;
}

function describeLoad(name: string, result: TimedLoadResult): string {
  return `${name}: ${result.rate.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, ${result.failures} failed`;
}

describe('a flood of wrong secrets for a known app name', () => {
  let server: RunningServer;
  let origin: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'credential-flood-'));
  before(async () => {
    server = await spawnServer({
      DATA_DIR: dataDir,
      GATEWAY_APPS: `${REAL.app}:${REAL.secret},${VICTIM.app}:${VICTIM.secret}`,
    });
    origin = `http://127.0.0.1:${server.gatewayPort}`;
  });
  after(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("leaves a real app's throughput and p99 within 20% of their unflooded values", async (t) => {
    const real = () =>
      runTimedLoad({
        origin,
        headers: { authorization: `Bearer ${REAL.app}:${REAL.secret}` },
        connections: REAL_CONNECTIONS,
        durationMs: PHASE_MS,
      });
    // Warmed up first (credentials verified, the tokenizer loaded, the code compiled).
    await runTimedLoad({
      ...{ origin, connections: REAL_CONNECTIONS, durationMs: 2_000 },
      headers: { authorization: `Bearer ${REAL.app}:${REAL.secret}` },
    });
    // Phases alternate, so that the shared machine's own swings fall on both sides alike.
    const unflooded: TimedLoadResult[] = [];
    const flooded: TimedLoadResult[] = [];
    const floods: FloodCount[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      unflooded.push(await real());
      let floodOn = true;
      const flooding = flood(origin, () => !floodOn);
      // The flood's first failures are answered at once; the measure starts once it is throttled.
      await new Promise((resolve) => setTimeout(resolve, 500));
      flooded.push(await real());
      floodOn = false;
      floods.push(await flooding);
    }
    // Medians of the rounds: one round caught by another process on this shared machine does not decide.
    const median = (results: TimedLoadResult[], pick: (r: TimedLoadResult) => number) =>
      results.map(pick).sort((a, b) => a - b)[Math.floor(results.length / 2)] as number;
    const base = { rate: median(unflooded, (r) => r.rate), p99: median(unflooded, (r) => r.p99Ms) };
    const under = { rate: median(flooded, (r) => r.rate), p99: median(flooded, (r) => r.p99Ms) };
    for (const [i, r] of unflooded.entries()) t.diagnostic(describeLoad(`unflooded ${i + 1}`, r));
    for (const [i, r] of flooded.entries()) t.diagnostic(describeLoad(`flooded ${i + 1}`, r));
    for (const [i, f] of floods.entries())
      t.diagnostic(`flood ${i + 1} statuses: ${JSON.stringify([...f.statuses])}`);

    const statuses = new Map<number, number>();
    for (const f of floods)
      for (const [status, n] of f.statuses) statuses.set(status, (statuses.get(status) ?? 0) + n);
    assert.deepEqual([...statuses.keys()].sort(), [401, 429], 'the flood was refused, never let in');
    assert.ok(
      flooded.every((r) => r.failures === 0 && r.answers > 0),
      'every real request answered 200',
    );
    assert.ok(
      under.rate >= base.rate * 0.8,
      `throughput ${under.rate.toFixed(0)} against ${base.rate.toFixed(0)} req/s`,
    );
    assert.ok(
      under.p99 <= base.p99 * 1.2 + 1,
      `p99 ${under.p99.toFixed(1)} against ${base.p99.toFixed(1)} ms`,
    );
  });

  it('throttles one address past its failures (429, Retry-After, answered late), not another address nor a verified app', async () => {
    const stranger = new Agent({ connections: 1 });
    const neighbour = new Agent({ localAddress: '127.0.0.2' });
    const attempt = async (dispatcher: Agent, authorization: string) => {
      const started = performance.now();
      const res = await request(`${origin}/v1/chat`, {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/json', authorization },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
      });
      const body = (await res.body.json()) as { error?: { code: string } };
      return {
        status: res.statusCode,
        code: body.error?.code,
        headers: res.headers,
        ms: performance.now() - started,
      };
    };
    const wrong = () => `Bearer ${VICTIM.app}:gws_${randomBytes(32).toString('base64url')}`;
    let last = await attempt(stranger, wrong());
    for (let i = 0; i < 150 && last.status === 401; i++) last = await attempt(stranger, wrong());
    assert.equal(last.status, 429);
    assert.equal(last.code, 'rate_limited');
    assert.ok(Number(last.headers['retry-after']) >= 1);
    assert.ok(last.ms >= 900, `a throttled answer waits about a second (${last.ms.toFixed(0)} ms)`);
    assert.equal((await attempt(neighbour, wrong())).status, 401, 'another address is judged on its own');
    assert.equal((await attempt(stranger, `Bearer ${REAL.app}:${REAL.secret}`)).status, 200);
    await Promise.all([stranger.close(), neighbour.close()]);
  });
});
