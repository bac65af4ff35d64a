import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chatLine, uploadFile, waitForBatch } from '../helpers/batch-files.ts';
import { APP, AUTH, shareGateway } from '../helpers/gateway-harness.ts';

const OTHER = { 'x-gateway-app': 'other-app', 'x-gateway-secret': 'other-secret-0123456789' };

describe('OpenAI Files and Batch API', () => {
  const gateway = shareGateway({
    env: { GATEWAY_APPS: `${APP}:${AUTH['x-gateway-secret']},other-app:${OTHER['x-gateway-secret']}` },
    file: { batches: { pollIntervalMs: 20 } },
  });

  it('runs a batch of chat requests and answers each once in the output file, with one ledger row each', async () => {
    const lines = ['a', 'b', 'c'].map((id) => chatLine(id));
    const upload = await uploadFile(gateway, `${lines.join('\n')}\n`, AUTH);
    assert.equal(upload.status, 200, upload.text);
    assert.equal(upload.body.object, 'file');
    assert.equal(upload.body.purpose, 'batch');
    assert.equal(upload.body.bytes, Buffer.byteLength(`${lines.join('\n')}\n`));
    const created = await gateway.post(
      '/v1/batches',
      {
        input_file_id: upload.body.id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
        metadata: { k: 'v' },
      },
      { headers: AUTH },
    );
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.request_counts.total, 3);
    assert.deepEqual(created.body.metadata, { k: 'v' });
    const done = await waitForBatch(
      gateway,
      `/v1/batches/${created.body.id}`,
      AUTH,
      (b) => b.status === 'completed',
    );
    assert.deepEqual(done.request_counts, { total: 3, completed: 3, failed: 0 });
    assert.equal(done.error_file_id, null);
    const output = await gateway.get(`/v1/files/${done.output_file_id}/content`);
    const results = output.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(results.map((r) => r.custom_id).sort(), ['a', 'b', 'c']);
    for (const result of results) {
      assert.equal(result.response.status_code, 200);
      assert.equal(result.response.body.object, 'chat.completion');
      assert.equal(result.error, null);
    }
    const outputFile = await gateway.get(`/v1/files/${done.output_file_id}`);
    assert.equal(outputFile.body.purpose, 'batch_output');
    assert.equal(outputFile.body.bytes, Buffer.byteLength(output.text));
    const usage = await gateway.get('/v1/usage?groupBy=batch,operation');
    const row = usage.body.rows.find((r: { batch: string | null }) => r.batch === created.body.id);
    assert.equal(row?.requests, 3);
    assert.equal(row?.operation, 'chat');
  });

  it('gives back the uploaded bytes, lists batches as OpenAI pages them, and deletes a file', async () => {
    const text = `${chatLine('x1')}\r\n\n${chatLine('x2')}`;
    const upload = await uploadFile(gateway, text, AUTH);
    assert.equal(upload.status, 200, upload.text);
    assert.equal((await gateway.get(`/v1/files/${upload.body.id}/content`)).text, text);
    const made = await gateway.post(
      '/v1/batches',
      { input_file_id: upload.body.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
      { headers: AUTH },
    );
    assert.equal(made.body.request_counts.total, 2, 'a blank line and a CRLF end are no requests');
    const list = await gateway.get('/v1/batches?limit=1');
    assert.equal(list.body.object, 'list');
    assert.equal(list.body.data.length, 1);
    assert.equal(list.body.has_more, true);
    const next = await gateway.get(`/v1/batches?limit=1&after=${list.body.last_id}`);
    assert.notEqual(next.body.data[0]?.id, list.body.data[0].id);
    const deleted = await gateway.request({
      method: 'DELETE',
      url: `/v1/files/${upload.body.id}`,
      headers: AUTH,
    });
    assert.deepEqual(deleted.body, { id: upload.body.id, object: 'file', deleted: true });
    assert.equal((await gateway.get(`/v1/files/${upload.body.id}`)).status, 404);
  });

  it("answers 404 in OpenAI's shape for another app's file and batch", async () => {
    const upload = await uploadFile(gateway, chatLine('mine'), AUTH);
    const batch = await gateway.post(
      '/v1/batches',
      { input_file_id: upload.body.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
      { headers: AUTH },
    );
    for (const path of [
      `/v1/files/${upload.body.id}`,
      `/v1/files/${upload.body.id}/content`,
      `/v1/batches/${batch.body.id}`,
    ]) {
      const reply = await gateway.get(path, { headers: OTHER });
      assert.equal(reply.status, 404, path);
      assert.equal(reply.body.error.type, 'not_found_error');
    }
    const cancel = await gateway.post(`/v1/batches/${batch.body.id}/cancel`, {}, { headers: OTHER });
    assert.equal(cancel.status, 404);
    const steal = await gateway.post(
      '/v1/batches',
      { input_file_id: upload.body.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
      { headers: OTHER },
    );
    assert.equal(steal.status, 404);
  });

  it("runs an embeddings batch: rows of operation embed, results in OpenAI's embeddings shape", async () => {
    const lines = ['e1', 'e2'].map((id) =>
      JSON.stringify({
        custom_id: id,
        method: 'POST',
        url: '/v1/embeddings',
        body: { model: 'text-embedding-3-small', input: `text ${id}` },
      }),
    );
    const upload = await uploadFile(gateway, lines.join('\n'), AUTH);
    const created = await gateway.post(
      '/v1/batches',
      { input_file_id: upload.body.id, endpoint: '/v1/embeddings', completion_window: '24h' },
      { headers: AUTH },
    );
    assert.equal(created.status, 200, created.text);
    const done = await waitForBatch(
      gateway,
      `/v1/batches/${created.body.id}`,
      AUTH,
      (b) => b.status === 'completed',
    );
    const output = await gateway.get(`/v1/files/${done.output_file_id}/content`);
    for (const line of output.text.trim().split('\n')) {
      const result = JSON.parse(line);
      assert.equal(result.response.body.object, 'list');
      assert.ok(result.response.body.data[0].embedding.length > 0);
    }
    const usage = await gateway.get('/v1/usage?groupBy=batch,operation');
    const row = usage.body.rows.find((r: { batch: string | null }) => r.batch === created.body.id);
    assert.deepEqual([row?.operation, row?.requests], ['embed', 2]);
  });

  it('refuses a batch ticket a client made up: the 401 of any wrong credential', async () => {
    const reply = await gateway.post(
      '/v1/chat/completions',
      { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
      { auth: false, headers: { 'x-gateway-batch-ticket': 'forged-ticket', 'x-gateway-app': APP } },
    );
    assert.equal(reply.status, 401);
  });

  it('runs a Responses batch: each result a Response object', async () => {
    const line = JSON.stringify({
      custom_id: 'r1',
      method: 'POST',
      url: '/v1/responses',
      body: { model: 'gpt-4o-mini', input: 'say r1', max_output_tokens: 256 },
    });
    const upload = await uploadFile(gateway, line, AUTH);
    const created = await gateway.post(
      '/v1/batches',
      { input_file_id: upload.body.id, endpoint: '/v1/responses', completion_window: '24h' },
      { headers: AUTH },
    );
    assert.equal(created.status, 200, created.text);
    const done = await waitForBatch(
      gateway,
      `/v1/batches/${created.body.id}`,
      AUTH,
      (b) => b.status === 'completed',
    );
    const result = JSON.parse((await gateway.get(`/v1/files/${done.output_file_id}/content`)).text);
    assert.equal(result.custom_id, 'r1');
    assert.equal(result.response.body.object, 'response');
    assert.equal(result.response.body.status, 'completed');
  });

  it("GET /v1/files lists the app's own files, newest first, in pages; asc and purpose filter", async () => {
    const mine: string[] = [];
    for (const id of ['l1', 'l2', 'l3']) {
      const upload = await uploadFile(gateway, chatLine(id), AUTH);
      mine.push(upload.body.id);
    }
    const theirs = (await uploadFile(gateway, chatLine('o1'), OTHER)).body.id;
    const all = await gateway.get('/v1/files', { headers: AUTH });
    assert.equal(all.status, 200);
    assert.equal(all.body.object, 'list');
    const ids: string[] = all.body.data.map((f: { id: string }) => f.id);
    assert.ok(!ids.includes(theirs), "another app's file is not listed");
    assert.deepEqual(ids.slice(0, 3), [...mine].reverse(), 'newest first');
    // Page by two: the same files, in the same order, has_more until the last page.
    const paged: string[] = [];
    for (let after: string | undefined, more = true; more; ) {
      const page = await gateway.get(`/v1/files?limit=2${after ? `&after=${after}` : ''}`, { headers: AUTH });
      assert.ok(page.body.data.length <= 2);
      paged.push(...page.body.data.map((f: { id: string }) => f.id));
      more = page.body.has_more;
      after = page.body.last_id;
    }
    assert.deepEqual(paged, ids);
    const asc = await gateway.get('/v1/files?order=asc&purpose=batch', { headers: AUTH });
    assert.deepEqual(asc.body.data.map((f: { id: string }) => f.id).slice(-3), mine);
    assert.ok(asc.body.data.every((f: { purpose: string }) => f.purpose === 'batch'));
    const bad = await gateway.get('/v1/files?order=sideways', { headers: AUTH });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.type, 'invalid_request_error');
  });
});
