import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chatLine, slowChatLine, uploadFile, waitForBatch } from '../helpers/batch-files.ts';
import { APP, AUTH, shareGateway, startGateway } from '../helpers/gateway-harness.ts';

const OTHER = { 'x-gateway-app': 'other-app', 'x-gateway-secret': 'other-secret-0123456789' };
const ANTHROPIC = { ...AUTH, 'anthropic-version': '2023-06-01' };

const messageRequest = (customId: string, params: Record<string, unknown> = {}) => ({
  custom_id: customId,
  params: {
    model: 'claude-sonnet-4-5',
    max_tokens: 16,
    messages: [{ role: 'user', content: `hi ${customId}` }],
    ...params,
  },
});

describe("Anthropic's Message Batches", () => {
  const gateway = shareGateway({
    env: { GATEWAY_APPS: `${APP}:${AUTH['x-gateway-secret']},other-app:${OTHER['x-gateway-secret']}` },
    file: { batches: { pollIntervalMs: 20 } },
  });

  it("runs the requests and answers results as JSON Lines in Anthropic's shapes", async () => {
    const created = await gateway.post(
      '/v1/messages/batches',
      { requests: [messageRequest('ok-1'), messageRequest('bad-1', { max_tokens: 'many' })] },
      { headers: ANTHROPIC },
    );
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.type, 'message_batch');
    assert.match(created.body.id, /^msgbatch_/);
    assert.equal(created.body.results_url, null);
    const path = `/v1/messages/batches/${created.body.id}`;
    const ended = await waitForBatch(gateway, path, ANTHROPIC, (b) => b.processing_status === 'ended');
    assert.deepEqual(ended.request_counts, {
      processing: 0,
      succeeded: 1,
      errored: 1,
      canceled: 0,
      expired: 0,
    });
    assert.match(ended.results_url, new RegExp(`${path}/results$`));
    const results = await gateway.get(`${path}/results`, { headers: ANTHROPIC });
    assert.equal(results.status, 200);
    const lines = results.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      lines.map((line) => [line.custom_id, line.result.type]),
      [
        ['ok-1', 'succeeded'],
        ['bad-1', 'errored'],
      ],
    );
    assert.equal(lines[0].result.message.type, 'message');
    assert.equal(lines[1].result.error.type, 'error');
    assert.equal(lines[1].result.error.error.type, 'invalid_request_error');
  });

  it("refuses a duplicate custom_id or a streaming request in Anthropic's error shape, naming the request", async () => {
    const duplicate = await gateway.post(
      '/v1/messages/batches',
      { requests: [messageRequest('same'), messageRequest('same')] },
      { headers: ANTHROPIC },
    );
    assert.equal(duplicate.status, 400);
    assert.equal(duplicate.body.type, 'error');
    assert.match(duplicate.body.error.message, /requests\.1\.custom_id: 'same' duplicates requests\.0/);
    const stream = await gateway.post(
      '/v1/messages/batches',
      { requests: [messageRequest('s', { stream: true })] },
      { headers: ANTHROPIC },
    );
    assert.equal(stream.status, 400);
    assert.match(stream.body.error.message, /requests\.0\.params\.stream/);
  });

  it("answers 404 for another app's batch", async () => {
    const created = await gateway.post(
      '/v1/messages/batches',
      { requests: [messageRequest('mine')] },
      { headers: ANTHROPIC },
    );
    const reply = await gateway.get(`/v1/messages/batches/${created.body.id}`, {
      headers: { ...OTHER, 'anthropic-version': '2023-06-01' },
    });
    assert.equal(reply.status, 404);
    assert.equal(reply.body.error.type, 'not_found_error');
  });
});

describe('batch cancel and limits', () => {
  it('cancels a running batch: requests not yet run end canceled, in the error file', async (t) => {
    const gateway = await startGateway(t, {
      file: { batches: { pollIntervalMs: 20, concurrency: 1 } },
    });
    const upload = await uploadFile(
      gateway,
      Array.from({ length: 8 }, (_, i) => slowChatLine(`c${i}`, 300)).join('\n'),
      AUTH,
    );
    const batch = await gateway.post(
      '/v1/batches',
      { input_file_id: upload.body.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
      { headers: AUTH },
    );
    const cancelling = await gateway.post(`/v1/batches/${batch.body.id}/cancel`, {}, { headers: AUTH });
    assert.equal(cancelling.status, 200);
    assert.ok(['cancelling', 'cancelled'].includes(cancelling.body.status), cancelling.body.status);
    const done = await waitForBatch(
      gateway,
      `/v1/batches/${batch.body.id}`,
      AUTH,
      (b) => b.status === 'cancelled',
    );
    assert.equal(done.request_counts.total, 8);
    assert.ok(done.request_counts.completed <= 1, 'at most the request in flight ran');
    const errors = (await gateway.get(`/v1/files/${done.error_file_id}/content`)).text.trim().split('\n');
    assert.equal(errors.length, 8 - done.request_counts.completed);
    assert.equal(JSON.parse(errors[0] as string).error.code, 'batch_cancelled');
  });

  it('waits for the next window under a token limit rather than failing its requests', async (t) => {
    // The real time plus an offset, starting a second into a minute: the hold below stays inside one
    // window (the in-process limit store also ends windows by the real clock), and moving the
    // offset on by a minute opens the next one.
    let offset = 61_000 - (Date.now() % 60_000);
    const clock = { now: () => Date.now() + offset, monotonic: () => performance.now() };
    const gateway = await startGateway(t, {
      clock,
      file: {
        limits: { apps: { [APP]: { tokensPerMinute: 30 } } },
        batches: { pollIntervalMs: 20, concurrency: 1 },
      },
    });
    const upload = await uploadFile(
      gateway,
      Array.from({ length: 4 }, (_, i) => chatLine(`w${i}`)).join('\n'),
      AUTH,
    );
    const batch = await gateway.post(
      '/v1/batches',
      { input_file_id: upload.body.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
      { headers: AUTH },
    );
    const path = `/v1/batches/${batch.body.id}`;
    const stalled = await waitForBatch(gateway, path, AUTH, (b) => b.request_counts.completed >= 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const held = (await gateway.get(path)).body;
    assert.equal(held.status, 'in_progress');
    assert.ok(held.request_counts.completed < 4, 'the limit holds the rest back');
    assert.equal(held.request_counts.failed, 0);
    for (let minute = 0; minute < 6; minute++) {
      offset += 61_000;
      const state = (await gateway.get(path)).body;
      if (state.status === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    const done = await waitForBatch(
      gateway,
      path,
      AUTH,
      (b) => b.status === 'completed' || b.request_counts.failed > 0,
      5000,
    );
    assert.deepEqual(done.request_counts, { total: 4, completed: 4, failed: 0 });
    assert.ok(stalled.request_counts.completed >= 1);
  });
});
