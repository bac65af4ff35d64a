import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, afterEach, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { type Application, buildApplication } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { minuteWindow } from '../../src/gateway/limits/limit-windows.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { APP, AUTH, writeConfigFile } from '../helpers/gateway-harness.ts';
import { clockAtMinuteStart } from '../helpers/minute-clock.ts';
import { type CutMode, type RedisRelay, startRedisRelay } from '../helpers/redis-relay.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SECRET = AUTH['x-gateway-secret'];
// The contract allows 250 ms of waiting on Redis; the rest is slack for a busy CI machine.
const MAX_ANSWER_MS = 400;
// Longer than this and the request is called hung: the old client held requests 6-15 s or forever.
const HUNG_MS = 3_000;

type LogLine = { level: number; msg: string; [key: string]: unknown };

/** Resolves the promise's value and how long it took, or `hung` when it takes longer than HUNG_MS. */
async function timed<T>(work: Promise<T>): Promise<{ value: T | 'hung'; ms: number }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), HUNG_MS);
  });
  const value = await Promise.race([work, hung]);
  clearTimeout(timer);
  return { value, ms: performance.now() - started };
}

describe('Redis lost while running', () => {
  const prefix = `test:${randomBytes(4).toString('hex')}:`;
  const logs: LogLine[] = [];
  let relay: RedisRelay;
  let app: Application;
  let direct: Redis;
  const clock = clockAtMinuteStart();

  const chat = () =>
    app.gateway?.inject({
      method: 'POST',
      url: '/v1/chat',
      headers: AUTH,
      payload: { messages: [{ role: 'user', content: 'outage' }] },
    });
  let signups = 0;
  const signup = () =>
    app.site?.inject({
      method: 'POST',
      url: '/api/newsletter',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: `reader${++signups}@example.com` }),
      remoteAddress: '198.51.100.7',
    });
  const redisLines = (level: number) => logs.filter((line) => line.level === level && /Redis/.test(line.msg));
  const sharedRequests = async () =>
    Number((await direct.get(`${prefix}limit:${APP}:rpm:${minuteWindow(clock.now()).id}`)) ?? 0);

  before(async () => {
    relay = await startRedisRelay();
    direct = new Redis(REDIS_URL);
    const env = {
      DATA_DIR: ':memory:',
      LOG_LEVEL: 'info',
      GATEWAY_APPS: `${APP}:${SECRET}`,
      REDIS_URL: relay.url(),
      REDIS_KEY_PREFIX: prefix,
      CONFIG_FILE: writeConfigFile({
        limits: {
          apps: {
            [APP]: {
              requestsPerMinute: 10_000,
              concurrentRequests: 50,
              dailyBudgetUsd: 1000,
              tokensPerMinute: 1e9,
            },
          },
        },
      }),
    };
    const config = loadConfig(env, []);
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line !== '') logs.push(JSON.parse(line));
        done();
      },
    });
    app = await buildApplication(config, createLogger({ level: 'info', destination }), {
      retryWait: async () => {},
      clock,
    });
    await app.gateway?.ready();
    await app.site?.ready();
  });

  // A failed test must not leave the next one cut off.
  afterEach(() => relay.restore());

  after(async () => {
    await app.close();
    await relay.close();
    const keys = await direct.keys(`${prefix}*`);
    if (keys.length > 0) await direct.del(...keys);
    await direct.quit();
  });

  for (const mode of ['refused', 'blackhole', 'readonly'] as CutMode[]) {
    it(`${mode}: requests and signups answer without waiting on Redis, one warning, then shared counting resumes`, async () => {
      // The outage's counts are checked in Redis's per-minute counter: all of it in one minute.
      clock.nextMinute();
      const warningsBefore = redisLines(40).length;
      const infosBefore = redisLines(30).length;
      const before = await sharedRequests();
      assert.equal((await chat())?.statusCode, 200);
      assert.ok((await sharedRequests()) > before, 'counted in Redis before the cut');

      const atCut = await sharedRequests();
      await relay.cut(mode);
      // Over about 3 s, so some requests meet the client redialling (and timing out) in the background.
      const answers: { call: string; status: number | 'hung'; ms: number }[] = [];
      for (let i = 0; i < 12; i++) {
        const call = i % 4 === 3 ? 'signup' : 'chat';
        const { value, ms } = await timed(
          (call === 'signup' ? signup() : chat()) as Promise<{ statusCode: number }>,
        );
        answers.push({ call, status: value === 'hung' ? value : value.statusCode, ms: Math.round(ms) });
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const figures = `${mode}: ${answers.map((a) => `${a.call} ${a.status} ${a.ms} ms`).join(', ')}`;
      console.log(figures);
      for (const answer of answers) {
        if (answer.call === 'chat') assert.ok(answer.status === 200 || answer.status === 429, figures);
        // A signup is let through: the limit counts here now, far below it.
        else assert.ok(answer.status !== 'hung' && answer.status < 300, figures);
        assert.ok(answer.ms < MAX_ANSWER_MS, figures);
      }
      assert.equal(app.sharedCounting()?.mode, 'local', 'the outage is visible to /metrics');
      assert.equal(redisLines(40).length - warningsBefore, 1, 'one warning for the outage');

      await relay.restore();
      const restored = performance.now();
      let resumedAfter: number | undefined;
      while (performance.now() - restored < 10_000) {
        const counted = await sharedRequests();
        assert.equal((await chat())?.statusCode, 200);
        if ((await sharedRequests()) > counted) {
          resumedAfter = performance.now() - restored;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      console.log(`${mode}: shared counting resumed ${Math.round(resumedAfter ?? -1)} ms after the restore`);
      assert.ok(resumedAfter !== undefined, 'shared counting resumes within 10 s');
      assert.equal(app.sharedCounting()?.mode, 'shared');
      // The requests counted here during the outage are added to the shared count when it resumes.
      const countedLocally = answers.filter((a) => a.call === 'chat' && a.status === 200).length;
      const settled = performance.now();
      while ((await sharedRequests()) < atCut + countedLocally && performance.now() - settled < 2_000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok((await sharedRequests()) >= atCut + countedLocally, 'the outage’s requests count in Redis');
      assert.equal(redisLines(30).length - infosBefore, 1, 'one info when shared counting resumes');
      assert.equal(redisLines(40).length - warningsBefore, 1, 'still one warning for the outage');
    });
  }

  it('shows an outage to /metrics without waiting for a request to meet it', async () => {
    const waitForMode = async (mode: 'shared' | 'local', withinMs: number) => {
      const started = performance.now();
      while (app.sharedCounting()?.mode !== mode && performance.now() - started < withinMs) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(app.sharedCounting()?.mode, mode);
    };
    const outages = app.sharedCounting()?.outages ?? 0;
    await relay.cut('refused');
    await waitForMode('local', 1_000);
    assert.equal(app.sharedCounting()?.outages, outages + 1);
    await relay.restore();
    await waitForMode('shared', 5_000);
  });
});
