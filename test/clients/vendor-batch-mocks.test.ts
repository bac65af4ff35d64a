import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { type MockVendorBatches, startMockVendorBatches } from '../helpers/mock-vendor-batches.ts';

/**
 * The vendors' batch API mocks are trusted only because the official clients complete batches on
 * them, talking to them directly: `openai` uploads a file, makes, polls, lists and cancels a
 * batch and reads its output and error files; `@anthropic-ai/sdk` makes, polls, lists and cancels
 * a Message Batch and reads its results. A wrong key is refused, so the checks are real.
 */
describe('vendor batch API mocks, driven by the official clients', () => {
  let mock: MockVendorBatches;
  let openai: OpenAI;
  let anthropic: Anthropic;
  before(async () => {
    mock = await startMockVendorBatches();
    openai = new OpenAI({ baseURL: mock.openaiBaseUrl, apiKey: 'openai-key', maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: mock.anthropicOrigin, apiKey: 'anthropic-key', maxRetries: 0 });
  });
  after(() => mock.close());

  it('openai: files.create, batches.create, retrieve until completed, output and error files', async () => {
    const lines = [
      {
        custom_id: 'a',
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
      },
      {
        custom_id: 'b',
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model: 'mock-fail', messages: [{ role: 'user', content: 'hi' }] },
      },
    ];
    const text = lines.map((line) => JSON.stringify(line)).join('\n');
    const file = await openai.files.create({
      file: await toFile(Buffer.from(text), 'in.jsonl'),
      purpose: 'batch',
    });
    assert.equal(file.purpose, 'batch');
    const made = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { gateway_batch_id: 'batch_x' },
    });
    assert.equal(made.status, 'in_progress');
    const done = await openai.batches.retrieve(made.id);
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.request_counts, { total: 2, completed: 1, failed: 1 });
    const listed = await openai.batches.list({ limit: 100 });
    assert.equal(listed.data.find((b) => b.id === made.id)?.metadata?.gateway_batch_id, 'batch_x');
    const output = (await (await openai.files.content(done.output_file_id as string)).text())
      .trim()
      .split('\n');
    const line = JSON.parse(output[0] as string);
    assert.equal(line.custom_id, 'a');
    assert.equal(line.response.body.choices[0].message.content, 'echo:a');
    const errors = (await (await openai.files.content(done.error_file_id as string)).text())
      .trim()
      .split('\n');
    assert.equal(JSON.parse(errors[0] as string).response.status_code, 400);
  });

  it('openai: a cancel ends a held batch cancelled; a wrong key is refused', async () => {
    const release = mock.hold();
    const text = JSON.stringify({
      custom_id: 'c',
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: 'gpt-4o-mini', messages: [] },
    });
    const file = await openai.files.create({
      file: await toFile(Buffer.from(text), 'in.jsonl'),
      purpose: 'batch',
    });
    const made = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    assert.equal((await openai.batches.retrieve(made.id)).status, 'in_progress');
    assert.equal((await openai.batches.cancel(made.id)).status, 'cancelled');
    release();
    const wrong = new OpenAI({ baseURL: mock.openaiBaseUrl, apiKey: 'nope', maxRetries: 0 });
    await assert.rejects(
      wrong.batches.retrieve(made.id),
      (error: unknown) => error instanceof OpenAI.AuthenticationError,
    );
  });

  it('anthropic: messages.batches create, retrieve until ended, results, list, cancel', async () => {
    const made = await anthropic.messages.batches.create({
      requests: [
        {
          custom_id: 'one',
          params: {
            model: 'claude-3-5-haiku-latest',
            max_tokens: 10,
            messages: [{ role: 'user', content: 'hi' }],
          },
        },
        {
          custom_id: 'two',
          params: { model: 'mock-fail', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
        },
      ],
    });
    assert.equal(made.processing_status, 'in_progress');
    const ended = await anthropic.messages.batches.retrieve(made.id);
    assert.equal(ended.processing_status, 'ended');
    assert.equal(ended.request_counts.succeeded, 1);
    const results = [];
    for await (const result of await anthropic.messages.batches.results(made.id)) results.push(result);
    assert.equal(results.length, 2);
    const first = results[0];
    assert.equal(first?.result.type, 'succeeded');
    if (first?.result.type === 'succeeded')
      assert.deepEqual(first.result.message.content, [{ type: 'text', text: 'echo:one' }]);
    assert.equal(results[1]?.result.type, 'errored');
    const page = await anthropic.messages.batches.list({ limit: 100 });
    assert.ok(page.data.some((b) => b.id === made.id));

    const release = mock.hold();
    const held = await anthropic.messages.batches.create({
      requests: [
        { custom_id: 'x', params: { model: 'claude-3-5-haiku-latest', max_tokens: 10, messages: [] } },
      ],
    });
    const cancelled = await anthropic.messages.batches.cancel(held.id);
    assert.equal(cancelled.processing_status, 'ended');
    assert.notEqual(cancelled.cancel_initiated_at, null);
    const canceled = [];
    for await (const result of await anthropic.messages.batches.results(held.id))
      canceled.push(result.result.type);
    assert.deepEqual(canceled, ['canceled']);
    release();
  });
});
