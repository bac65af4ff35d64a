import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { buildServer } from '../../scripts/build-server.ts';
import { type FakeSmtp, startFakeSmtp } from '../helpers/fake-smtp.ts';
import { writeConfigFile } from '../helpers/gateway-harness.ts';
import { MCP_HEADERS } from '../helpers/mcp-http.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { createTestSchema } from '../helpers/postgres.ts';
import { waitFor } from '../helpers/site-harness.ts';
import { type RunningServer, spawnServer } from '../helpers/spawn-server.ts';
import { startWebhookServer, type WebhookServer } from '../helpers/webhook-server.ts';

/**
 * The server as `npm start` runs it: one bundle (scripts/build-server.ts), whose chunks load on
 * first use. The other tests run the TypeScript sources, so this file takes the bundle through
 * every part that loads late or finds a file at run time: the tokenizer, structured output, both
 * compatible doors, the ledger's writer thread, the dashboard's assets, metrics, OTLP export over
 * protobuf, the site's content, health (the package version), MCP, mail over SMTP, the newsletter
 * webhook, and PostgreSQL, Redis and a YAML config file.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT_DIR = join(ROOT, 'bench', 'results', 'tmp', `bundled-server-${process.pid}`);
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const APP = 'bundle-app';
const SECRET = 'bundle-secret-0123456789';
const KEY = `${APP}:${SECRET}`;
const ADMIN_TOKEN = 'admin-token-0123456789abcdef';
const METRICS_TOKEN = 'metrics-token-0123456789';

async function call(
  port: number | undefined,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    redirect: 'manual',
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

const bearer = { authorization: `Bearer ${KEY}` };

describe('the bundled server', { timeout: 180_000 }, () => {
  before(() => buildServer(OUT_DIR), { timeout: 120_000 });
  after(() => rmSync(OUT_DIR, { recursive: true, force: true }));

  describe('both surfaces on the embedded defaults', () => {
    let server: RunningServer;
    let otlp: OtlpReceiver;
    let webhook: WebhookServer;
    let smtp: FakeSmtp;
    const dataDir = mkdtempSync(join(tmpdir(), 'bundled-server-'));

    before(async () => {
      [otlp, webhook, smtp] = await Promise.all([startOtlpReceiver(), startWebhookServer(), startFakeSmtp()]);
      server = await spawnServer(
        {
          SURFACES: 'gateway,site',
          DATA_DIR: dataDir,
          NODE_ENV: 'production',
          GATEWAY_APPS: KEY,
          ADMIN_TOKEN,
          METRICS_TOKEN,
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
          MAIL_TRANSPORT: 'smtp',
          SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
          MAIL_FROM: 'news@example.test',
          NEWSLETTER_WEBHOOK_URL: webhook.url,
          // Told on the signup itself (the async mode's worker polls on its own schedule).
          NEWSLETTER_WEBHOOK_MODE: 'sync',
          NEWSLETTER_WEBHOOK_SECRET: 'webhook-secret-0123456789',
          PUBLIC_SITE_URL: 'https://www.example.test',
        },
        2,
        [process.execPath, join(OUT_DIR, 'main.js')],
      );
    });
    after(async () => {
      await server?.stop();
      await Promise.all([
        otlp?.close(),
        webhook?.close(),
        new Promise((resolve) => smtp?.server.close(resolve)),
      ]);
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('answers the native API (the tokenizer, a stream, embeddings, structured output)', async () => {
      const chat = await call(server.gatewayPort, '/v1/chat', {
        body: { messages: [{ role: 'user', content: 'Hello from the bundle' }] },
        headers: bearer,
      });
      assert.equal(chat.status, 200, chat.text);
      const usage = (JSON.parse(chat.text) as { usage: { tokensIn: number } }).usage;
      assert.ok(usage.tokensIn > 0, chat.text);
      const stream = await call(server.gatewayPort, '/v1/chat', {
        body: { messages: [{ role: 'user', content: 'stream it' }], stream: true },
        headers: bearer,
      });
      assert.equal(stream.status, 200, stream.text);
      assert.match(stream.text, /event: done/);
      const embed = await call(server.gatewayPort, '/v1/embed', {
        body: { input: ['a', 'b'] },
        headers: bearer,
      });
      assert.equal(embed.status, 200, embed.text);
      assert.equal((JSON.parse(embed.text) as { embeddings: unknown[] }).embeddings.length, 2);
      const json = await call(server.gatewayPort, '/v1/json', {
        body: {
          messages: [{ role: 'user', content: 'a zip code' }],
          schema: {
            type: 'object',
            properties: { zip: { type: 'string', pattern: '^[0-9]{5}$' } },
            required: ['zip'],
          },
        },
        headers: bearer,
      });
      assert.equal(json.status, 200, json.text);
      assert.match((JSON.parse(json.text) as { data: { zip: string } }).data.zip, /^[0-9]{5}$/);
    });

    it('answers both compatible doors', async () => {
      const openai = await call(server.gatewayPort, '/v1/chat/completions', {
        body: { model: 'provider-a/simulated-chat', messages: [{ role: 'user', content: 'hi' }] },
        headers: bearer,
      });
      assert.equal(openai.status, 200, openai.text);
      assert.equal((JSON.parse(openai.text) as { object: string }).object, 'chat.completion');
      const anthropic = await call(server.gatewayPort, '/v1/messages', {
        body: {
          model: 'provider-a/simulated-chat',
          max_tokens: 64,
          messages: [{ role: 'user', content: 'hi' }],
        },
        headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
      });
      assert.equal(anthropic.status, 200, anthropic.text);
      assert.equal((JSON.parse(anthropic.text) as { type: string }).type, 'message');
      const models = await call(server.gatewayPort, '/v1/models', { headers: bearer });
      assert.equal(models.status, 200, models.text);
    });

    it('reads a large body on the JSON thread, an entry point of its own in the bundle', async () => {
      // 1 MiB of prompt: past OFF_THREAD_BYTES, so parsed on the thread (a missing worker file
      // would answer 503 here), and long enough for the simulator's sampled seed.
      const content = 'the bundle reads a long prompt off its event loop '.repeat(21_000);
      const chat = await call(server.gatewayPort, '/v1/chat', {
        body: { messages: [{ role: 'user', content }] },
        headers: bearer,
      });
      assert.equal(chat.status, 200, chat.text.slice(0, 300));
      const usage = (JSON.parse(chat.text) as { usage: { tokensIn: number } }).usage;
      assert.ok(usage.tokensIn > 100_000, chat.text.slice(0, 300));
    });

    it('writes the ledger through its worker thread and reads it back', async () => {
      const usage = await call(server.gatewayPort, '/v1/usage', { headers: bearer });
      assert.equal(usage.status, 200, usage.text);
      const body = JSON.parse(usage.text) as { totals: { requests: number } };
      assert.ok(body.totals.requests >= 6, usage.text);
    });

    it('serves the dashboard with its assets, and metrics', async () => {
      const page = await call(server.gatewayPort, '/dashboard');
      assert.equal(page.status, 200, page.text);
      const script = await call(server.gatewayPort, '/dashboard/assets/dashboard.js');
      assert.equal(script.status, 200);
      assert.ok(script.text.length > 10_000, 'the bundled Chart.js page script');
      const metrics = await call(server.gatewayPort, '/metrics', {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      assert.equal(metrics.status, 200, metrics.text);
      assert.match(metrics.text, /gateway_requests_total\{/);
    });

    it('exports spans over OTLP/protobuf', async () => {
      await waitFor(() => (otlp.spans.length > 0 ? true : undefined), 'an exported span', 15_000);
      assert.ok(otlp.contentTypes.some((type) => type.startsWith('application/x-protobuf')));
    });

    it('serves the site: health with the package version, content, discovery and MCP', async () => {
      const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
        .version;
      const health = await call(server.sitePort, '/api/health');
      assert.equal(health.status, 200, health.text);
      assert.equal((JSON.parse(health.text) as { version: string }).version, version);
      const skills = await call(server.sitePort, '/.well-known/agent-skills/index.json');
      assert.equal(skills.status, 200, skills.text);
      const card = await call(server.sitePort, '/.well-known/mcp/server-card.json');
      assert.equal(card.status, 200, card.text);
      const initialize = await call(server.sitePort, '/mcp', {
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'bundle-test', version: '1.0.0' },
          },
        },
        headers: { ...MCP_HEADERS },
      });
      assert.equal(initialize.status, 200, initialize.text);
      assert.match(initialize.text, /"serverInfo"/);
    });

    it('sends the confirmation mail over SMTP and the signup webhook', async () => {
      const signup = await call(server.sitePort, '/api/newsletter', {
        body: { email: 'reader@example.test' },
      });
      assert.ok(signup.status === 200 || signup.status === 202, signup.text);
      await waitFor(() => (smtp.messages.length > 0 ? true : undefined), 'a mail at the SMTP sink', 15_000);
      assert.match(smtp.messages[0]?.to.join(' ') ?? '', /reader@example\.test/);
      await waitFor(() => (webhook.received.length > 0 ? true : undefined), 'a webhook', 15_000);
    });
  });

  describe('the gateway on PostgreSQL and Redis, configured by a YAML file', () => {
    let server: RunningServer;
    let schema: Awaited<ReturnType<typeof createTestSchema>>;
    const prefix = `bundle-${process.pid}:`;

    before(async () => {
      schema = await createTestSchema();
      server = await spawnServer(
        {
          SURFACES: 'gateway',
          DATABASE_URL: schema.url,
          REDIS_URL,
          REDIS_KEY_PREFIX: prefix,
          NODE_ENV: 'production',
          GATEWAY_APPS: KEY,
          CONFIG_FILE: writeConfigFile({
            limits: { apps: { [APP]: { requestsPerMinute: 1000, dailyBudgetUsd: 1000 } } },
          }),
        },
        1,
        [process.execPath, join(OUT_DIR, 'main.js')],
      );
    });
    after(async () => {
      await server?.stop();
      await schema?.drop();
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    });

    it('counts the limit in Redis and records usage in PostgreSQL', async () => {
      const chat = await call(server.gatewayPort, '/v1/chat', {
        body: { messages: [{ role: 'user', content: 'shared' }] },
        headers: bearer,
      });
      assert.equal(chat.status, 200, chat.text);
      assert.match(chat.headers.get('ratelimit-policy') ?? '', /q=1000/);
      const redis = new Redis(REDIS_URL);
      try {
        // On a loaded machine the reservation's command can pass its 200 ms bound: the request
        // is then counted in the instance, and the count handed to Redis once it answers again.
        // The day's budget counter, which outlives the look (a minute's counter expires with its
        // minute, which a slow look may pass, and a test cannot set a spawned server's clock).
        const deadline = Date.now() + 10_000;
        let keys = await redis.keys(`${prefix}limit:${APP}:usd:*`);
        while (keys.length === 0 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          keys = await redis.keys(`${prefix}limit:${APP}:usd:*`);
        }
        assert.ok(keys.length > 0, "the day's budget counter is in Redis");
      } finally {
        await redis.quit();
      }
      const usage = await call(server.gatewayPort, '/v1/usage', { headers: bearer });
      assert.equal(usage.status, 200, usage.text);
      assert.equal((JSON.parse(usage.text) as { totals: { requests: number } }).totals.requests, 1);
    });
  });
});
