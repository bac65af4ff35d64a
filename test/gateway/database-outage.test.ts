import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, afterEach, before, describe, it } from 'node:test';
import pg from 'pg';
import { type Application, buildApplication } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { DATABASE_FILE } from '../../src/storage/embedded/open-sqlite.ts';
import { APP, AUTH } from '../helpers/gateway-harness.ts';
import { bindRequests, type Reply } from '../helpers/inject-reply.ts';
import { createTestSchema, startPostgresRelay, throughRelay } from '../helpers/postgres.ts';
import { breakSqliteHeader, onTheSide } from '../helpers/sqlite-header.ts';
import type { TcpRelay } from '../helpers/tcp-relay.ts';

const ADMIN_TOKEN = 'admin-token-for-the-outage-tests';
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };
/** An app whose credentials no request checks before the database is gone. */
const LATE = { name: 'late-app', secret: 'late-secret-0123456789' };
/** Another, kept for the partition (a check of LATE before it would still be cached). */
const UNSEEN = { name: 'unseen-app', secret: 'unseen-secret-0123456789' };
const ADMIN_REPORTS = ['usage', 'latency', 'refusals', 'failures', 'apps'];
const messages = [{ role: 'user', content: 'record me' }];

type LogLine = { level: number; msg: string; reqId?: string; responseId?: string; err?: { message: string } };

/** One engine, and how a test takes its database away and gives it back. */
interface Outage {
  env: Record<string, string>;
  /** What must appear in no answer and no log line (the password, the connection string). */
  secrets: string[];
  cut(): Promise<void>;
  /** A network partition: connections stay open and nothing answers (PostgreSQL only). */
  partition?(): Promise<void>;
  restore(): Promise<void>;
  /** Ledger rows, and distinct ids among them, read beside the gateway. */
  countRows(): Promise<{ rows: number; ids: number }>;
  /** Runs statements beside the gateway, on its database. */
  run(sql: string): Promise<void>;
  /** The driver's words for the failure, which the log line must carry. */
  cause: RegExp;
  close(): Promise<void>;
}

async function postgresOutage(): Promise<Outage> {
  const schema = await createTestSchema();
  const relay: TcpRelay = await startPostgresRelay();
  // Trust auth ignores the password: it is there to be looked for where it must not be.
  const password = 'db-password-never-shown-7f3a';
  const url = throughRelay(schema.url, relay);
  url.password = password;
  const direct = new pg.Client({ connectionString: schema.url });
  await direct.connect();
  return {
    env: { DATABASE_URL: url.toString(), DATA_DIR: ':memory:' },
    secrets: [password, url.toString()],
    cut: () => relay.cut('refused'),
    partition: () => relay.cut('blackhole'),
    restore: () => relay.restore(),
    async countRows() {
      const { rows } = await direct.query<{ rows: string; ids: string }>(
        'SELECT count(*) AS rows, count(DISTINCT id) AS ids FROM usage_requests',
      );
      return { rows: Number(rows[0]?.rows), ids: Number(rows[0]?.ids) };
    },
    run: async (sql) => {
      await direct.query(sql);
    },
    cause: /ECONNREFUSED|ECONNRESET|Connection terminated/,
    async close() {
      await direct.end();
      await relay.close();
      await schema.drop();
    },
  };
}

/** The embedded file made unreadable under the running gateway (see breakSqliteHeader). */
async function sqliteOutage(): Promise<Outage> {
  const dataDir = mkdtempSync(join(tmpdir(), 'database-outage-'));
  const file = join(dataDir, DATABASE_FILE);
  let restoreHeader = () => {};
  return {
    env: { DATA_DIR: dataDir },
    secrets: [dataDir],
    async cut() {
      restoreHeader = breakSqliteHeader(file);
    },
    async restore() {
      restoreHeader();
    },
    async countRows() {
      let counts = { rows: 0, ids: 0 };
      onTheSide(file, (db) => {
        const row = db
          .prepare('SELECT count(*) AS rows, count(DISTINCT id) AS ids FROM usage_requests')
          .get();
        counts = { rows: Number(row?.rows), ids: Number(row?.ids) };
      });
      return counts;
    },
    run: async (sql) => onTheSide(file, (db) => db.exec(sql)),
    cause: /file is not a database/,
    close: async () => {},
  };
}

for (const [engine, open] of [
  ['PostgreSQL (a relay in front of the server, cut)', postgresOutage],
  ['embedded SQLite (the file made unreadable)', sqliteOutage],
] as const) {
  describe(`database lost while running: ${engine}`, () => {
    const logs: LogLine[] = [];
    let outage: Outage;
    let app: Application;
    let cut = false;
    const gateway = () => {
      if (app.gateway === undefined) throw new Error('no gateway');
      return bindRequests(app.gateway);
    };
    const usage = () => gateway().get('/v1/usage', { headers: AUTH });

    /** 503 `service_unavailable` in the envelope, Retry-After, one error line with the cause, no secret anywhere. */
    function assertUnavailable(reply: Reply, what: string, body = reply.body?.error, cause = outage.cause) {
      assert.equal(reply.status, 503, `${what}: ${reply.text}`);
      assert.equal(reply.headers['retry-after'], '5', what);
      assert.equal(body?.message, 'the database is unavailable; try again in a few seconds', what);
      const requestId = String(reply.headers['x-request-id']);
      const errors = logs.filter((line) => line.level === 50 && line.reqId === requestId);
      assert.equal(errors.length, 1, `${what}: one error line for the request`);
      assert.equal(errors[0]?.msg, 'request failed', what);
      assert.match(String(errors[0]?.err?.message), cause, `${what}: the log line says why`);
      const seen = [reply.text, JSON.stringify(reply.headers), JSON.stringify(logs)].join('\n');
      for (const secret of outage.secrets) assert.ok(!seen.includes(secret), `${what}: a secret was shown`);
    }

    before(async () => {
      outage = await open();
      const config = loadConfig(
        {
          ...outage.env,
          LOG_LEVEL: 'info',
          SURFACES: 'gateway',
          ADMIN_TOKEN,
          GATEWAY_APPS: `${APP}:${AUTH['x-gateway-secret']},${LATE.name}:${LATE.secret},${UNSEEN.name}:${UNSEEN.secret}`,
        },
        [],
      );
      const destination = new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split('\n')) if (line !== '') logs.push(JSON.parse(line));
          done();
        },
      });
      app = await buildApplication(config, createLogger({ level: 'info', destination }));
      await app.gateway?.ready();
    });

    // A failed test must not leave the next one without its database.
    afterEach(async () => {
      if (cut) await outage.restore();
      cut = false;
    });

    after(async () => {
      await app.close();
      await outage.close();
    });

    const takeAway = async () => {
      await outage.cut();
      cut = true;
    };
    const giveBack = async () => {
      await outage.restore();
      cut = false;
    };

    it('GET /v1/usage answers 503; the records it could not write are kept, then written once each', async () => {
      assert.equal((await gateway().post('/v1/chat', { messages }, { headers: AUTH })).status, 200);
      assert.equal((await usage()).body.totals.requests, 1);

      await takeAway();
      // The app's credentials were checked a moment ago (cached for 5 s): these are served.
      for (let i = 0; i < 3; i++)
        assert.equal((await gateway().post('/v1/chat', { messages }, { headers: AUTH })).status, 200);
      assertUnavailable(await usage(), 'GET /v1/usage');
      assert.equal(app.recorder.pending, 3, 'the records stay queued');

      await giveBack();
      const back = await usage();
      assert.equal(back.status, 200, back.text);
      assert.equal(back.body.totals.requests, 4);
      assert.deepEqual(await outage.countRows(), { rows: 4, ids: 4 });
    });

    it('every admin report answers 503, not kept by a cache', async () => {
      await takeAway();
      const figures: string[] = [];
      for (const report of ADMIN_REPORTS) {
        const started = performance.now();
        const reply = await gateway().get(`/admin/api/${report}`, { headers: ADMIN });
        figures.push(`${report} ${(performance.now() - started).toFixed(1)} ms`);
        assertUnavailable(reply, `/admin/api/${report}`);
        assert.equal(reply.headers['cache-control'], 'no-store');
      }
      console.log(`${engine}: 503 from /admin/api/ ${figures.join(', ')}`);
      await giveBack();
      for (const report of ADMIN_REPORTS) {
        const reply = await gateway().get(`/admin/api/${report}`, { headers: ADMIN });
        assert.equal(reply.status, 200, `/admin/api/${report} after: ${reply.text}`);
      }
    });

    it('a dashboard session cannot be checked or signed out: 503, never taken on faith', async () => {
      const origin = 'http://localhost:8787';
      const signIn = await gateway().request({
        method: 'POST',
        url: '/dashboard/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
        payload: `token=${ADMIN_TOKEN}`,
      });
      assert.equal(signIn.status, 303);
      const cookie = String(signIn.headers['set-cookie']).split(';')[0] as string;
      const page = () => gateway().get('/dashboard', { headers: { cookie } });
      const signOut = () =>
        gateway().request({ method: 'POST', url: '/dashboard/sign-out', headers: { origin, cookie } });
      const shell = /dashboard\/assets\/dashboard\.js/;
      assert.match((await page()).text, shell);

      await takeAway();
      assertUnavailable(await page(), 'GET /dashboard with a session');
      const out = await signOut();
      assertUnavailable(out, 'POST /dashboard/sign-out');
      assert.equal(out.headers['set-cookie'], undefined, 'the browser keeps the session to sign out again');
      // What needs no database is answered as before: the sign-in form, and a forged cookie
      // (refused by its signature before any read).
      const [expires, nonce] = cookie.split('=')[1]?.split('.') ?? [];
      for (const headers of [{}, { cookie: `gateway_admin=${expires}.${nonce}.forged` }]) {
        const form = await gateway().get('/dashboard', { headers });
        assert.equal(form.status, 200, form.text);
        assert.match(form.text, /action="\/dashboard\/sign-in"/);
      }

      await giveBack();
      // The connections the pool kept through the cut are dead; the first request after still
      // succeeds (database-recovery.test.ts).
      assert.match((await page()).text, shell, 'the failed sign-out ended nothing');
      assert.equal((await signOut()).status, 303);
      assert.match((await page()).text, /action="\/dashboard\/sign-in"/);
    });

    it('credentials are checked from memory: a known key is served on every door while the database is away, its row written once it is back', async () => {
      // Keys live in the governance cache (decision 0026), refreshed from the database each second:
      // an outage keeps the keys it last read, so a request's credentials never wait on it.
      const rowsBefore = (await outage.countRows()).rows;
      await takeAway();
      const key = `${LATE.name}:${LATE.secret}`;
      const native = await gateway().post(
        '/v1/chat',
        { messages },
        { headers: { 'x-gateway-app': LATE.name, 'x-gateway-secret': LATE.secret } },
      );
      assert.equal(native.status, 200, native.text);
      const models = await gateway().get('/v1/models', { headers: { authorization: `Bearer ${key}` } });
      assert.equal(models.status, 200, models.text);
      const tokens = await gateway().post(
        '/v1/messages/count_tokens',
        { model: 'simulated-chat', messages },
        { headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' } },
      );
      assert.equal(tokens.status, 200, tokens.text);
      await giveBack();
      // The chat's row was kept through the outage and written once (counting tokens and the model
      // list leave none).
      await app.recorder.flush();
      assert.equal((await outage.countRows()).rows, rowsBefore + 1);
      const bad = await gateway().get('/v1/models', {
        headers: { authorization: `Bearer ${LATE.name}:wrong-secret-0123` },
      });
      assert.equal(bad.status, 401, bad.text);
    });

    it('a Responses request with store: true: answered, not kept (a warning), and reading or continuing it is 503 until the database is back', async () => {
      const bearer = { authorization: `Bearer ${APP}:${AUTH['x-gateway-secret']}` };
      // The app's credentials checked first (cached for 5 s), so only the store meets the outage.
      assert.equal((await gateway().get('/v1/models', { headers: bearer })).status, 200);
      const rowsBefore = (await outage.countRows()).rows;
      await takeAway();
      const made = await gateway().post(
        '/v1/responses',
        { model: 'chat', input: 'keep me', store: true },
        { headers: bearer },
      );
      // The answer was made and paid for: it goes out (responses-door.ts); only its continuation is lost.
      assert.equal(made.status, 200, made.text);
      const id = String(made.body.id);
      const warning = logs.find((line) => line.msg === 'stored response not kept' && line.responseId === id);
      assert.ok(warning !== undefined, 'a warning names the response not kept');
      assertUnavailable(
        await gateway().get(`/v1/responses/${id}`, { headers: bearer }),
        'GET /v1/responses/:id',
      );
      const continued = await gateway().post(
        '/v1/responses',
        { model: 'chat', input: 'and then?', previous_response_id: id },
        { headers: bearer },
      );
      assertUnavailable(continued, 'POST /v1/responses with previous_response_id');

      await giveBack();
      const after = await gateway().get(`/v1/responses/${id}`, { headers: bearer });
      assert.equal(after.status, 404, after.text);
      // The answered request's ledger row was kept through the outage and written once.
      await app.recorder.flush();
      assert.equal((await outage.countRows()).rows, rowsBefore + 1);
    });

    it('a query the database refuses is a 500 as before: only an outage is a 503', async () => {
      const rename = (from: string, to: string) =>
        outage.run(
          ['hourly', 'daily']
            .map((grain) => `ALTER TABLE ${from}_${grain} RENAME TO ${to}_${grain}`)
            .join('; '),
        );
      await rename('usage_latency', 'renamed_latency');
      try {
        const reply = await gateway().get('/admin/api/latency', { headers: ADMIN });
        assert.equal(reply.status, 500, reply.text);
        assert.deepEqual(reply.body, { error: { code: 'internal_error', message: 'internal error' } });
        assert.equal(reply.headers['retry-after'], undefined);
      } finally {
        await rename('renamed_latency', 'usage_latency');
      }
      assert.equal((await gateway().get('/admin/api/latency', { headers: ADMIN })).status, 200);
    });

    if (engine.startsWith('PostgreSQL'))
      it('a network partition (connections open, nothing answers): 503 within the read bound, not a hang', async () => {
        assert.equal((await gateway().post('/v1/chat', { messages }, { headers: AUTH })).status, 200);
        await outage.partition?.();
        cut = true;
        assert.equal((await gateway().post('/v1/chat', { messages }, { headers: AUTH })).status, 200);
        const started = performance.now();
        const timed = async (work: Promise<Reply>) => {
          const reply = await work;
          return { reply, ms: Math.round(performance.now() - started) };
        };
        // At once: each waits for its own bound (the flush first, then a read), not for the others.
        const answers = await Promise.all([
          timed(usage()),
          timed(gateway().get('/admin/api/apps', { headers: ADMIN })),
          timed(
            gateway().get('/v1/models', {
              headers: { authorization: `Bearer ${UNSEEN.name}:${UNSEEN.secret}` },
            }),
          ),
        ]);
        const figures = answers.map(({ reply, ms }) => `${reply.status} after ${ms} ms`).join(', ');
        console.log(
          `partition: /v1/usage, /admin/api/apps, /v1/models (credentials from memory): ${figures}`,
        );
        const timeouts =
          /Query read timeout|Connection terminated due to connection timeout|timeout exceeded/;
        // Credentials are the governance cache's (decision 0026): the model list needs no database.
        const listed = answers[2];
        assert.equal(listed?.reply.status, 200, figures);
        for (const [i, what] of ['GET /v1/usage', '/admin/api/apps'].entries()) {
          const answer = answers[i];
          assert.ok(answer !== undefined);
          assertUnavailable(answer.reply, what, answer.reply.body?.error, timeouts);
          // The flush waits 5 s at most, a read 10 s: 15 s, and some slack for a loaded machine.
          assert.ok(answer.ms < 20_000, figures);
        }
        await giveBack();
        const back = await usage();
        assert.equal(back.status, 200, back.text);
      });

    it('the process serves on: liveness answers throughout', async () => {
      await takeAway();
      assert.equal((await gateway().get('/health')).status, 200);
      assertUnavailable(await usage(), 'GET /v1/usage');
      assert.equal((await gateway().get('/health')).status, 200);
    });
  });
}
