import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chatLine, multipartBody, uploadFile } from '../helpers/batch-files.ts';
import { APP, AUTH, shareGateway } from '../helpers/gateway-harness.ts';

/** The clock the gateway reads: tests move it to expire files. */
let now = Date.UTC(2026, 0, 10);
const clock = { now: () => now, monotonic: () => performance.now() };

describe('batch files: bad input is refused in the envelope, naming the line or the part', () => {
  const gateway = shareGateway({
    clock,
    file: { batches: { maxFileBytes: 4096, maxRequestsPerFile: 3, pollIntervalMs: 20 } },
  });

  const refusals: [string, string | Buffer, RegExp][] = [
    ['not JSON', `${chatLine('a')}\n{"custom_id": "b",\n`, /line 2: not valid JSON/],
    ['not an object', `${chatLine('a')}\n[1, 2]\n`, /line 2: must be a JSON object/],
    [
      'a missing custom_id',
      JSON.stringify({ method: 'POST', url: '/v1/embeddings', body: {} }),
      /line 1: custom_id is missing/,
    ],
    [
      'a duplicate custom_id, on its second line',
      `${chatLine('a')}\n${chatLine('b')}\n${chatLine('a')}\n`,
      /line 3: custom_id 'a' duplicates line 1/,
    ],
    ['a wrong url', `${chatLine('a', 'hi', '/v1/completions')}\n`, /line 1: url must be one of/],
    [
      'a method other than POST',
      JSON.stringify({ custom_id: 'a', method: 'GET', url: '/v1/embeddings', body: {} }),
      /line 1: method must be POST/,
    ],
    [
      'a body that is no object',
      JSON.stringify({ custom_id: 'a', method: 'POST', url: '/v1/embeddings', body: 'x' }),
      /line 1: body must be a JSON object/,
    ],
    [
      'more requests than the bound',
      [1, 2, 3, 4].map((n) => chatLine(`r${n}`)).join('\n'),
      /line 4: more than 3 requests/,
    ],
    ['no request at all', '\n\n', /holds no request/],
    ['bytes that are not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]), /line 1: not valid UTF-8/],
  ];
  for (const [what, text, message] of refusals) {
    it(`refuses ${what} with a 400 naming it`, async () => {
      const reply = await uploadFile(gateway, text, AUTH);
      assert.equal(reply.status, 400, reply.text);
      assert.match(reply.body.error.message, message);
      assert.equal(reply.body.error.param, 'file');
      assert.equal(reply.body.error.type, 'invalid_request_error');
    });
  }

  it('refuses a file past batches.maxFileBytes with a 413, and keeps nothing of it', async () => {
    const lines = Array.from({ length: 3 }, (_, i) => chatLine(`big${i}`, 'x'.repeat(2000)));
    const reply = await uploadFile(gateway, lines.join('\n'), AUTH);
    assert.equal(reply.status, 413, reply.text);
    assert.match(reply.body.error.message, /batches\.maxFileBytes \(4096 bytes\)/);
  });

  it('refuses a broken multipart body, a missing file part, a wrong purpose and a body that is no multipart', async () => {
    const broken = await gateway.request({
      method: 'POST',
      url: '/v1/files',
      headers: { ...AUTH, 'content-type': 'multipart/form-data; boundary=abc' },
      payload: '--abc\r\nContent-Disposition: form-data; name="file"; filename="a.jsonl"\r\n\r\n{"a":1}',
    });
    assert.equal(broken.status, 400, broken.text);
    assert.match(broken.body.error.message, /malformed multipart body|part 'file'/);
    const noFile = multipartBody([{ name: 'purpose', value: 'batch' }]);
    const missing = await gateway.request({
      method: 'POST',
      url: '/v1/files',
      headers: { ...AUTH, ...noFile.headers },
      payload: noFile.payload,
    });
    assert.equal(missing.status, 400);
    assert.match(missing.body.error.message, /part 'file' is missing/);
    const wrongPurpose = multipartBody([
      { name: 'purpose', value: 'fine-tune' },
      { name: 'file', value: chatLine('a'), filename: 'a.jsonl' },
    ]);
    const purpose = await gateway.request({
      method: 'POST',
      url: '/v1/files',
      headers: { ...AUTH, ...wrongPurpose.headers },
      payload: wrongPurpose.payload,
    });
    assert.equal(purpose.status, 400);
    assert.equal(purpose.body.error.param, 'purpose');
    const json = await gateway.post('/v1/files', { purpose: 'batch' }, { headers: AUTH });
    assert.equal(json.status, 415);
  });

  it('refuses a batch whose file has a line to another endpoint, naming the line, and makes no batch', async () => {
    const upload = await uploadFile(
      gateway,
      `${chatLine('a')}\n${chatLine('b', 'x', '/v1/embeddings')}\n`,
      AUTH,
    );
    assert.equal(upload.status, 200, upload.text);
    const before = (await gateway.get('/v1/batches?limit=100')).body.data.length;
    const reply = await gateway.post(
      '/v1/batches',
      { input_file_id: upload.body.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
      { headers: AUTH },
    );
    assert.equal(reply.status, 400);
    assert.match(reply.body.error.message, /line 2: url '\/v1\/embeddings' is not the batch's endpoint/);
    assert.equal((await gateway.get('/v1/batches?limit=100')).body.data.length, before);
    const window = await gateway.post(
      '/v1/batches',
      { input_file_id: upload.body.id, endpoint: '/v1/chat/completions', completion_window: '1h' },
      { headers: AUTH },
    );
    assert.equal(window.status, 400);
    assert.equal(window.body.error.param, 'completion_window');
  });

  it('answers 404 for a file past its 30 days', async () => {
    const upload = await uploadFile(gateway, chatLine('old'), AUTH);
    assert.equal((await gateway.get(`/v1/files/${upload.body.id}`)).status, 200);
    now += 30 * 86_400_000;
    const reply = await gateway.get(`/v1/files/${upload.body.id}`);
    assert.equal(reply.status, 404);
    assert.equal(reply.body.error.type, 'not_found_error');
  });
});

describe("batch files: a model outside the app's allow list (apps[].models)", () => {
  const gateway = shareGateway({
    env: { GATEWAY_APPS: '' },
    file: { apps: [{ name: APP, secret: AUTH['x-gateway-secret'], models: ['gpt-4o-mini'] }] },
  });

  it('refuses the line at upload, naming it and the model', async () => {
    const other = chatLine('b', 'x', '/v1/chat/completions', { model: 'claude-sonnet-4-5' });
    const reply = await uploadFile(gateway, `${chatLine('a')}\n${other}\n`, AUTH);
    assert.equal(reply.status, 400, reply.text);
    assert.match(reply.body.error.message, /line 2: model 'claude-sonnet-4-5' is not allowed/);
  });
});
