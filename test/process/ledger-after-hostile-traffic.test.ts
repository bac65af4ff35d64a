import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Agent, request } from 'undici';
import { hostileCases } from '../../bench/hostile-bodies.ts';
import { type FuzzRequest, fuzzRequests } from '../helpers/fuzz-requests.ts';
import { type RunningServer, spawnServer } from '../helpers/spawn-server.ts';
import { runTimedLoad, type TimedLoadResult } from '../helpers/timed-chat-load.ts';

/**
 * Issue 27's state: fuzzed requests, hostile JSON Schemas and a wrong-secret flood, then load.
 * CI size by default; LEDGER_HOSTILE_LONG=1 runs the issue's sizes (10,000 fuzzed requests, 10 s loads).
 */
const LONG = process.env.LEDGER_HOSTILE_LONG === '1';
const FUZZED = LONG ? 10_000 : 1_500;
const LONG_NAMES = LONG ? 1_000 : 300;
const LOAD_MS = LONG ? 10_000 : 3_000;
const CONNECTIONS = 20;
const APPS = ['fresh', 'hostile', 'after'].map((name) => ({ name, secret: `${name}-secret-0123456789` }));
const FUZZ_APP = { name: 'fuzz-app', secret: 'fuzz-secret-0123456789' };

const auth = (app: { name: string; secret: string }) => ({
  authorization: `Bearer ${app.name}:${app.secret}`,
});
const chat = { messages: [{ role: 'user', content: 'Say hello.' }], task: 'default', maxTokens: 16 };

/** The fuzz targets: the inference routes of every door, each with a valid call to mutate. */
function fuzzedRequests(count: number): FuzzRequest[] {
  const headers = {
    'x-gateway-app': FUZZ_APP.name,
    'x-gateway-secret': FUZZ_APP.secret,
    'content-type': 'application/json',
  };
  const targets = [
    { path: '/v1/chat', body: chat },
    {
      path: '/v1/json',
      body: { ...chat, schema: { type: 'object', properties: { a: { type: 'string' } } } },
    },
    { path: '/v1/embed', body: { input: ['one', 'two'] } },
    { path: '/v1/chat/completions', body: { model: 'chat', messages: chat.messages } },
    { path: '/v1/messages', body: { model: 'chat', max_tokens: 16, messages: chat.messages } },
  ].map((t) =>
    fuzzRequests({ surface: 'gateway', method: 'POST', route: t.path, path: t.path, body: t.body, headers }),
  );
  return fc.sample(fc.oneof(...targets), { numRuns: count, seed: 27 });
}

async function sendAll(
  origin: string,
  requests: readonly FuzzRequest[],
  connections: number,
): Promise<Map<number, number>> {
  const agent = new Agent({ connections, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const statuses = new Map<number, number>();
  let next = 0;
  const loop = async () => {
    while (next < requests.length) {
      const sent = requests[next++] as FuzzRequest;
      let status = 0;
      try {
        const res = await request(`${origin}${sent.url}`, {
          method: sent.method as 'POST',
          dispatcher: agent,
          headers: sent.headers,
          body: sent.payload ?? null,
        });
        await res.body.dump();
        status = res.statusCode;
      } catch {}
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  await agent.close();
  return statuses;
}

async function usageRequests(origin: string, app: { name: string; secret: string }): Promise<number> {
  const res = await request(`${origin}/v1/usage`, { headers: auth(app) });
  const body = (await res.body.json()) as { totals: { requests: number } };
  assert.equal(res.statusCode, 200);
  return body.totals.requests;
}

/** CPU ms the server process has used (all its threads), from /proc. */
function serverCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const describeLoad = (name: string, r: TimedLoadResult & { cpuMs: number }) =>
  `${name}: ${r.answers} answered, ${r.rate.toFixed(0)} req/s, p99 ${r.p99Ms.toFixed(1)} ms, ${r.failures} failed, ` +
  `server CPU ${((r.cpuMs * 1000) / Math.max(1, r.answers)).toFixed(0)} µs a request`;

/** The database files' sizes in MiB (the WAL grows while checkpoints cannot finish). */
function databaseFiles(dir: string): string {
  return readdirSync(dir)
    .filter((name) => /\.(db|sqlite)(-wal)?$|-wal$/.test(name))
    .map((name) => `${name} ${(statSync(join(dir, name)).size / 2 ** 20).toFixed(1)} MiB`)
    .join(', ');
}

describe('the embedded ledger after hostile traffic', () => {
  let server: RunningServer;
  let origin: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'ledger-hostile-'));
  before(async () => {
    const apps = [...APPS, FUZZ_APP].map((app) => `${app.name}:${app.secret}`).join(',');
    server = await spawnServer({
      DATA_DIR: dataDir,
      GATEWAY_APPS: apps,
      ...(process.env.LEDGER_HOSTILE_NODE_OPTIONS
        ? { NODE_OPTIONS: process.env.LEDGER_HOSTILE_NODE_OPTIONS }
        : {}),
    });
    origin = `http://127.0.0.1:${server.gatewayPort}`;
  });
  after(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A load of one app's chats, then how many of its answered requests GET /v1/usage holds 1 s after the last answer. */
  const loadAndCount = async (app: { name: string; secret: string }) => {
    const before = await usageRequests(origin, app);
    const cpuBefore = serverCpuMs(server.child.pid as number);
    const timed = await runTimedLoad({
      origin,
      headers: auth(app),
      connections: CONNECTIONS,
      durationMs: LOAD_MS,
    });
    const load = { ...timed, cpuMs: serverCpuMs(server.child.pid as number) - cpuBefore };
    const wait = load.lastAnswerAt + 1_000 - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return { load, counted: (await usageRequests(origin, app)) - before };
  };

  it('holds every answered request 1 s after the last answer, and keeps its throughput, after hostile traffic', async (t) => {
    // Every app in use before anything is measured (their credentials verified, the tokenizer loaded).
    for (const app of APPS)
      await runTimedLoad({ origin, headers: auth(app), connections: 2, durationMs: 500 });
    const fresh = await loadAndCount(APPS[0] as (typeof APPS)[number]);
    t.diagnostic(
      `${describeLoad('fresh', fresh.load)}; usage 1 s later: ${fresh.counted}; ${databaseFiles(dataDir)}`,
    );

    // The hostile phase.
    const started = performance.now();
    const fuzzed = await sendAll(origin, fuzzedRequests(FUZZED), 8);
    const hostile = hostileCases().map((c) => ({
      method: 'POST',
      url: c.path,
      headers: { ...auth(FUZZ_APP), 'content-type': 'application/json' },
      payload: c.body,
    }));
    // Names as long as a body allows: on main each answered one became a key of the ledger's
    // rollups, and every later insert of that hour read through them (the writer fell to ~200 rows/s).
    const longNames = Array.from({ length: LONG_NAMES }, (_, i) => ({
      method: 'POST',
      url: i % 2 === 0 ? '/v1/chat' : '/v1/json',
      headers: { ...auth(FUZZ_APP), 'content-type': 'application/json' },
      payload: JSON.stringify({
        ...chat,
        model: `${i}-${'m'.repeat(1_000 * (1 + (i % 100)))}`,
        ...(i % 2 === 0 ? {} : { schema: { type: 'object' } }),
      }),
    }));
    const hostileStatuses = await sendAll(origin, [...hostile, ...(LONG ? hostile : []), ...longNames], 4);
    const wrongSecrets = Array.from({ length: LONG ? 400 : 100 }, (_, i) => ({
      method: 'POST',
      url: '/v1/chat',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${APPS[1]?.name}:${i % 2 === 0 ? randomBytes(9).toString('hex') : `gws_${randomBytes(32).toString('base64url')}`}`,
      },
      payload: JSON.stringify(chat),
    }));
    const credentialStatuses = await sendAll(origin, wrongSecrets, 20);
    t.diagnostic(
      `hostile phase ${((performance.now() - started) / 1000).toFixed(1)} s: fuzz ${JSON.stringify([...fuzzed])}, ` +
        `schemas ${JSON.stringify([...hostileStatuses])}, wrong secrets ${JSON.stringify([...credentialStatuses])}`,
    );
    // Mixed load meanwhile: the hostile app's chats.
    const mixed = await loadAndCount(APPS[1] as (typeof APPS)[number]);
    t.diagnostic(
      `${describeLoad('mixed', mixed.load)}; usage 1 s later: ${mixed.counted}; ${databaseFiles(dataDir)}`,
    );
    const afterwards = await loadAndCount(APPS[2] as (typeof APPS)[number]);
    t.diagnostic(
      `${describeLoad('after', afterwards.load)}; usage 1 s later: ${afterwards.counted}; ${databaseFiles(dataDir)}`,
    );

    assert.equal(fresh.counted, fresh.load.answers, 'fresh: every answered request in the ledger 1 s later');
    assert.equal(mixed.counted, mixed.load.answers, 'mixed: every answered request in the ledger 1 s later');
    assert.equal(
      afterwards.counted,
      afterwards.load.answers,
      'after: every answered request in the ledger 1 s later',
    );
    assert.ok(
      afterwards.load.rate >= fresh.load.rate * 0.8,
      `after the hostile phase ${afterwards.load.rate.toFixed(0)} req/s against ${fresh.load.rate.toFixed(0)} fresh`,
    );
    assert.equal(fuzzed.get(500) ?? 0, 0, 'no fuzzed request got a 500');
    assert.equal(fuzzed.get(0) ?? 0, 0, 'every fuzzed request answered');
  });
});
