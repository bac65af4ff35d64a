import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { chatLine } from '../helpers/batch-files.ts';
import { APP, type Harness, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { type MockAnthropicServer, startMockAnthropic } from '../helpers/mock-anthropic-server.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';

/** A free port, so that PUBLIC_GATEWAY_URL (Anthropic's `results_url`) names where the gateway listens. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The official clients complete batches through the gateway on a simulated slot, an OpenAI slot
 * and an Anthropic slot (the vendors' recording mocks). With `batches.vendorBatches` off the gateway
 * runs each request itself through the door of its endpoint, so the upstream sees plain live
 * requests, never a batch API (batches-vendor.test.ts has the vendors' batch APIs).
 */
function describeSdkBatches(
  name: string,
  upstream: () => { env: Record<string, string>; model: string; calls: (gw: Harness) => number },
  prepare: () => Promise<void>,
  finish: () => Promise<void>,
): void {
  describe(`official clients complete batches: ${name}`, () => {
    let port = 0;
    before(async () => {
      await prepare();
      port = await freePort();
    });
    const gw: Harness = shareGateway(() => ({
      env: { ...upstream().env, PUBLIC_GATEWAY_URL: `http://127.0.0.1:${port}` },
      file: { batches: { pollIntervalMs: 20, vendorBatches: false } },
    }));
    let openai: OpenAI;
    let anthropic: Anthropic;
    before(async () => {
      await gw.gateway.listen({ port, host: '127.0.0.1' });
      openai = new OpenAI({
        baseURL: `http://127.0.0.1:${port}/v1`,
        apiKey: `${APP}:${SECRET}`,
        maxRetries: 0,
      });
      anthropic = new Anthropic({
        baseURL: `http://127.0.0.1:${port}`,
        apiKey: `${APP}:${SECRET}`,
        maxRetries: 0,
      });
    });
    after(finish);

    it('openai: files.create, batches.create and retrieve, files.content', async () => {
      const model = upstream().model;
      const before = upstream().calls(gw);
      const text = ['one', 'two']
        .map((id) => chatLine(id, `say ${id}`, '/v1/chat/completions', { model }))
        .join('\n');
      const file = await openai.files.create({
        file: await toFile(Buffer.from(text), 'in.jsonl'),
        purpose: 'batch',
      });
      assert.equal(file.purpose, 'batch');
      let batch = await openai.batches.create({
        input_file_id: file.id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      });
      for (let i = 0; i < 400 && batch.status !== 'completed'; i++) {
        await sleep(50);
        batch = await openai.batches.retrieve(batch.id);
      }
      assert.equal(batch.status, 'completed');
      assert.deepEqual(batch.request_counts, { total: 2, completed: 2, failed: 0 });
      const output = await (await openai.files.content(batch.output_file_id as string)).text();
      const results = output
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.deepEqual(results.map((r) => r.custom_id).sort(), ['one', 'two']);
      assert.ok(results.every((r) => r.response.status_code === 200 && r.response.body.choices.length === 1));
      assert.equal(upstream().calls(gw) - before, 2, 'each request went upstream once, as a live request');
      const listed = await openai.batches.list({ limit: 10 });
      assert.ok(listed.data.some((b) => b.id === batch.id));
    });

    it('anthropic: messages.batches.create, retrieve, results and cancel', async () => {
      const model = upstream().model;
      const requests = ['m1', 'm2'].map((id) => ({
        custom_id: id,
        params: { model, max_tokens: 32, messages: [{ role: 'user' as const, content: `hello ${id}` }] },
      }));
      let batch = await anthropic.messages.batches.create({ requests });
      assert.equal(batch.processing_status, 'in_progress');
      for (let i = 0; i < 400 && batch.processing_status !== 'ended'; i++) {
        await sleep(50);
        batch = await anthropic.messages.batches.retrieve(batch.id);
      }
      assert.equal(batch.processing_status, 'ended');
      assert.equal(batch.request_counts.succeeded, 2);
      const seen: string[] = [];
      for await (const line of await anthropic.messages.batches.results(batch.id)) {
        assert.equal(line.result.type, 'succeeded');
        if (line.result.type === 'succeeded') assert.equal(line.result.message.role, 'assistant');
        seen.push(line.custom_id);
      }
      assert.deepEqual(seen, ['m1', 'm2']);
      const ended = await anthropic.messages.batches.cancel(batch.id);
      assert.equal(ended.processing_status, 'ended', 'an ended batch stays ended');
      const other = await anthropic.messages.batches.create({
        requests: [requests[0] as (typeof requests)[0]],
      });
      const cancelled = await anthropic.messages.batches.cancel(other.id);
      assert.ok(['canceling', 'ended'].includes(cancelled.processing_status));
    });
  });
}

describeSdkBatches(
  'simulated slot',
  () => ({ env: {}, model: 'gpt-4o-mini', calls: (gw) => gw.callsTo('provider-a') }),
  async () => {},
  async () => {},
);

let openaiMock: MockOpenAIServer;
const chatCalls = (mock: MockOpenAIServer) =>
  mock.requests.filter((r) => r.path === '/v1/chat/completions').length;
describeSdkBatches(
  'OpenAI slot',
  () => ({
    env: {
      PROVIDER_A_KIND: 'openai',
      PROVIDER_A_BASE_URL: openaiMock.baseUrl,
      PROVIDER_A_API_KEY: 'openai-key',
    },
    model: 'gpt-4o-mini',
    calls: () => chatCalls(openaiMock),
  }),
  async () => {
    openaiMock = await startMockOpenAI({ apiKey: 'openai-key' });
  },
  async () => openaiMock.close(),
);

let anthropicMock: MockAnthropicServer;
describeSdkBatches(
  'Anthropic slot',
  () => ({
    env: {
      PROVIDER_A_KIND: 'anthropic',
      PROVIDER_A_BASE_URL: anthropicMock.origin,
      PROVIDER_A_API_KEY: 'anthropic-key',
    },
    model: 'claude-sonnet-4-5',
    calls: () => anthropicMock.requests.filter((r) => r.path === '/v1/messages').length,
  }),
  async () => {
    anthropicMock = await startMockAnthropic();
  },
  async () => anthropicMock.close(),
);
