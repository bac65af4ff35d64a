import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chatLine, uploadFile, waitForBatch } from '../helpers/batch-files.ts';
import { AUTH, shareGateway } from '../helpers/gateway-harness.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';

/**
 * An `openai` slot whose server has no Files or Batch API (an OpenAI-compatible server; here the
 * chat mock, which answers 404 as OpenAI does to an unknown path): the refused submission hands
 * the batch back to the gateway, which runs each request live, once, at the live price.
 */
describe('a vendor without a batch API', () => {
  let mock: MockOpenAIServer;
  before(async () => {
    mock = await startMockOpenAI({ apiKey: 'openai-key' });
  });
  after(() => mock.close());
  const gateway = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'openai', PROVIDER_A_BASE_URL: mock.baseUrl, PROVIDER_A_API_KEY: 'openai-key' },
    file: { batches: { pollIntervalMs: 20, vendorPollMs: 20 } },
  }));

  it('the 404 to the upload hands the batch to the gateway: each request once, live', async () => {
    const upload = await uploadFile(gateway, ['f1', 'f2'].map((id) => chatLine(id)).join('\n'), AUTH);
    const created = await gateway.post(
      '/v1/batches',
      { input_file_id: upload.body.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
      { headers: AUTH },
    );
    assert.equal(created.status, 200, created.text);
    const batch = await waitForBatch(
      gateway,
      `/v1/batches/${created.body.id}`,
      AUTH,
      (b) => b.status !== 'in_progress',
    );
    assert.equal(batch.status, 'completed');
    assert.deepEqual(batch.request_counts, { total: 2, completed: 2, failed: 0 });
    const paths = mock.requests.map((r) => `${r.method} ${r.path}`);
    assert.equal(paths.filter((p) => p === 'POST /v1/files').length, 1, 'tried the vendor once');
    assert.equal(paths.filter((p) => p === 'POST /v1/batches').length, 0);
    assert.equal(
      paths.filter((p) => p === 'POST /v1/chat/completions').length,
      2,
      'then each request live, once',
    );
    await gateway.app.recorder.flush();
    const rows = (await gateway.app.storage.usage.readRecords({ limit: 100 })).filter(
      (r) => r.batchId === created.body.id,
    );
    assert.equal(rows.length, 2);
    assert.ok(
      rows.every((r) => r.priceSource === 'genai-prices'),
      'the live price',
    );
  });
});
