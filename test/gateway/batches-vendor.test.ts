import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { priceUsage } from '../../src/gateway/domain/pricing.ts';
import { PriceBook } from '../../src/gateway/pricing/price-book.ts';
import type { UsageRecord } from '../../src/storage/ports.ts';
import { chatLine } from '../helpers/batch-files.ts';
import { APP, type Harness, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { type MockVendorBatches, startMockVendorBatches } from '../helpers/mock-vendor-batches.ts';

/**
 * Batches whose requests pin an `openai` or `anthropic` slot go to that vendor's batch API (the
 * recording mocks of mock-vendor-batches.ts, which the official clients trust in
 * test/clients/vendor-batch-mocks.test.ts): submitted once, polled, their results mapped back to
 * the client's custom_ids, one ledger row each at half the live price, a cancel forwarded. Other
 * batches (a simulated slot) the gateway runs itself.
 */

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let i = 0; i < 400 && !done(value); i++) {
    await sleep(25);
    value = await read();
  }
  return value;
}

async function rowsOf(gw: Harness, batchId: string): Promise<UsageRecord[]> {
  await gw.app.recorder.flush();
  return (await gw.app.storage.usage.readRecords({ limit: 1000 })).filter((row) => row.batchId === batchId);
}

const prices = new PriceBook({});
await prices.load();
/** Half the live price of the mocks' usage (10 in, 5 out) for the model. */
function batchCost(kind: 'openai' | 'anthropic', model: string): number {
  const live = priceUsage({ inputTokens: 10, outputTokens: 5 }, prices.resolve(kind, model).price);
  assert.ok(live > 0, `${model} has a live price`);
  return live / 2;
}

describe('batches on the vendors’ batch APIs', () => {
  let mock: MockVendorBatches;
  let port = 0;
  before(async () => {
    mock = await startMockVendorBatches();
    port = await freePort();
  });
  const gw: Harness = shareGateway(() => ({
    env: {
      PUBLIC_GATEWAY_URL: `http://127.0.0.1:${port}`,
      PROVIDER_A_KIND: 'openai',
      PROVIDER_A_BASE_URL: mock.openaiBaseUrl,
      PROVIDER_A_API_KEY: 'openai-key',
      PROVIDER_C_KIND: 'anthropic',
      PROVIDER_C_BASE_URL: mock.anthropicOrigin,
      PROVIDER_C_API_KEY: 'anthropic-key',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    },
    file: { batches: { pollIntervalMs: 20, vendorPollMs: 20, vendorPollMaxMs: 40 } },
    logs: process.stderr,
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
  after(() => mock.close());

  const upload = async (lines: string[]) =>
    openai.files.create({ file: await toFile(Buffer.from(lines.join('\n')), 'in.jsonl'), purpose: 'batch' });

  it('openai: submitted once to OpenAI’s Batch API, results mapped back exactly, one row each at the batch price', async () => {
    const file = await upload([
      chatLine('a', 'say a'),
      chatLine('b', 'say b'),
      chatLine('c', 'say c', '/v1/chat/completions', { model: 'provider-a/mock-fail' }),
    ]);
    const made = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const batch = await until(
      () => openai.batches.retrieve(made.id),
      (b) => b.status === 'completed',
    );
    assert.equal(batch.status, 'completed');
    assert.deepEqual(batch.request_counts, { total: 3, completed: 2, failed: 1 });

    const creates = mock.requests.filter((r) => r.method === 'POST' && r.path === '/v1/batches');
    const mine = creates.filter((r) => JSON.parse(r.body).metadata?.gateway_batch_id === made.id);
    assert.equal(mine.length, 1, 'submitted once, named by the gateway’s batch id');
    const upstream = mock.batches.find(
      (b) => b.meta.metadata && (b.meta.metadata as Record<string, string>).gateway_batch_id === made.id,
    );
    assert.deepEqual(
      upstream?.requests.map((r) => [r.custom_id, r.body.model]),
      [
        ['a', 'gpt-4o-mini'],
        ['b', 'gpt-4o-mini'],
        ['c', 'mock-fail'],
      ],
      'the slot taken off the model',
    );
    assert.equal(
      mock.requests.filter((r) => r.path === '/v1/chat/completions').length,
      0,
      'no live request upstream',
    );

    const output = (await (await openai.files.content(batch.output_file_id as string)).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      output.map((l) => [l.custom_id, l.response.status_code, l.response.body.choices[0].message.content]),
      [
        ['a', 200, 'echo:a'],
        ['b', 200, 'echo:b'],
      ],
    );
    const errors = (await (await openai.files.content(batch.error_file_id as string)).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      errors.map((l) => [l.custom_id, l.response.status_code, l.response.body.error.code]),
      [['c', 400, 'model_not_found']],
    );

    const rows = await rowsOf(gw, made.id);
    assert.equal(rows.length, 3, 'one ledger row per request');
    const ok = rows.filter((r) => r.status === 200);
    assert.equal(ok.length, 2);
    for (const row of ok) {
      assert.equal(row.provider, 'provider-a');
      assert.equal(row.operation, 'chat');
      assert.equal(row.frontDoor, 'openai');
      assert.equal(row.priceSource, 'genai-prices:batch');
      assert.deepEqual([row.tokensIn, row.tokensOut], [10, 5]);
      assert.ok(
        Math.abs(row.costUsd - batchCost('openai', 'gpt-4o-mini')) < 1e-12,
        `${row.costUsd} is half the live price`,
      );
    }
    assert.equal(rows.find((r) => r.status === 400)?.costUsd, 0);
  });

  it('anthropic: a Message Batch goes to Anthropic’s Message Batches; results and rows exact', async () => {
    const params = (model: string) => ({
      model,
      max_tokens: 16,
      messages: [{ role: 'user' as const, content: 'hi' }],
    });
    const made = await anthropic.messages.batches.create({
      requests: [
        { custom_id: 'm1', params: params('claude-3-5-haiku-latest') },
        { custom_id: 'm2', params: params('provider-c/mock-fail') },
      ],
    });
    const batch = await until(
      () => anthropic.messages.batches.retrieve(made.id),
      (b) => b.processing_status === 'ended',
    );
    assert.equal(batch.processing_status, 'ended');
    assert.deepEqual([batch.request_counts.succeeded, batch.request_counts.errored], [1, 1]);
    const results = [];
    for await (const line of await anthropic.messages.batches.results(made.id)) results.push(line);
    assert.equal(results[0]?.custom_id, 'm1');
    assert.equal(results[0]?.result.type, 'succeeded');
    if (results[0]?.result.type === 'succeeded')
      assert.deepEqual(results[0].result.message.content, [{ type: 'text', text: 'echo:m1' }]);
    assert.equal(results[1]?.result.type, 'errored');
    const submitted = mock.requests.filter((r) => r.method === 'POST' && r.path === '/v1/messages/batches');
    assert.ok(
      submitted.some((r) =>
        JSON.parse(r.body).requests.some(
          (q: { params: { model: string } }) => q.params.model === 'mock-fail',
        ),
      ),
    );
    assert.equal(
      mock.requests.filter((r) => r.path === '/v1/messages').length,
      0,
      'no live request upstream',
    );
    const rows = await rowsOf(gw, made.id);
    assert.equal(rows.length, 2);
    const ok = rows.find((r) => r.status === 200) as UsageRecord;
    assert.equal(ok.frontDoor, 'anthropic');
    assert.equal(ok.provider, 'provider-c');
    assert.ok(Math.abs(ok.costUsd - batchCost('anthropic', 'claude-3-5-haiku-latest')) < 1e-12);
  });

  it('a cancel is forwarded upstream; what the vendor never ran ends cancelled', async () => {
    const release = mock.hold();
    try {
      const file = await upload([chatLine('x'), chatLine('y')]);
      const made = await openai.batches.create({
        input_file_id: file.id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      });
      await until(
        async () =>
          mock.batches.find(
            (b) => (b.meta.metadata as Record<string, string> | undefined)?.gateway_batch_id === made.id,
          ),
        (b) => b !== undefined,
      );
      const cancelling = await openai.batches.cancel(made.id);
      assert.equal(cancelling.status, 'cancelling', 'the vendor has the batch: its cancel decides');
      const batch = await until(
        () => openai.batches.retrieve(made.id),
        (b) => b.status === 'cancelled',
      );
      assert.equal(batch.status, 'cancelled');
      const upstream = mock.batches.find(
        (b) => (b.meta.metadata as Record<string, string> | undefined)?.gateway_batch_id === made.id,
      );
      assert.ok(
        mock.requests.some((r) => r.method === 'POST' && r.path === `/v1/batches/${upstream?.id}/cancel`),
        'cancel forwarded',
      );
      const errors = (await (await openai.files.content(batch.error_file_id as string)).text())
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.deepEqual(
        errors.map((l) => [l.custom_id, l.error.code]),
        [
          ['x', 'batch_cancelled'],
          ['y', 'batch_cancelled'],
        ],
      );
      assert.equal((await rowsOf(gw, made.id)).length, 0, 'nothing ran, nothing charged');
    } finally {
      release();
    }
  });

  it('a batch on a simulated slot is run by the gateway; the vendors see nothing of it', async () => {
    const before = mock.requests.length;
    const file = await upload([chatLine('s1', 'hi', '/v1/chat/completions', { model: 'provider-b/sim' })]);
    const made = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const batch = await until(
      () => openai.batches.retrieve(made.id),
      (b) => b.status === 'completed',
    );
    assert.equal(batch.request_counts?.completed, 1);
    assert.equal(mock.requests.length, before);
    // The client's own pager walks GET /v1/files two at a time, the output file included.
    const listed: string[] = [];
    for await (const listedFile of openai.files.list({ limit: 2 })) listed.push(listedFile.id);
    assert.ok(listed.includes(file.id) && listed.includes(batch.output_file_id as string));
    assert.equal(new Set(listed).size, listed.length, 'no file twice across pages');
    const [row] = await rowsOf(gw, made.id);
    assert.equal(row?.provider, 'provider-b');
    assert.notEqual(row?.priceSource, 'genai-prices:batch');
  });
});
