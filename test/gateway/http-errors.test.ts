import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUTH, shareGateway } from '../helpers/gateway-harness.ts';

describe('HTTP-level errors always use the envelope, never a 500', () => {
  const gw = shareGateway({ env: { MAX_BODY_BYTES: '4096' } });

  const raw = (payload: string, contentType = 'application/json', url = '/v1/chat') =>
    gw.gateway.inject({ method: 'POST', url, headers: { ...AUTH, 'content-type': contentType }, payload });

  const envelope = (
    res: { statusCode: number; json(): any; headers: Record<string, unknown> },
    status: number,
    code: string,
  ) => {
    assert.equal(res.statusCode, status);
    const body = res.json();
    assert.equal(body.error.code, code);
    assert.equal(typeof body.error.message, 'string');
    assert.ok(res.headers['x-request-id'], 'x-request-id on errors too');
  };

  for (const payload of [
    '{bad',
    '{"messages": [}',
    '',
    'null',
    '"just a string"',
    '{"messages":[{"role":"user","content":"x"}]} trailing',
  ]) {
    it(`malformed or non-object body ${JSON.stringify(payload)} is a 400`, async () => {
      const res = await raw(payload);
      assert.equal(res.statusCode, 400);
      assert.ok(['invalid_json', 'invalid_request'].includes(res.json().error.code));
    });
  }

  it('syntax errors are invalid_json', async () => envelope(await raw('{bad'), 400, 'invalid_json'));

  it('prototype poisoning is refused with a 400', async () => {
    const res = await raw(
      '{"messages":[{"role":"user","content":"x"}],"metadata":{"__proto__":{"admin":true}}}',
    );
    assert.equal(res.statusCode, 400);
  });

  it('oversized bodies are 413 payload_too_large', async () => {
    const big = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(10_000) }] });
    envelope(await raw(big), 413, 'payload_too_large');
  });

  it('non-JSON media types are 415 unsupported_media_type', async () => {
    envelope(await raw('hello', 'text/plain'), 415, 'unsupported_media_type');
    envelope(await raw('a=b', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type');
  });

  it('unknown paths are 404 not_found', async () => {
    envelope(await gw.gateway.inject({ method: 'GET', url: '/v2/chat' }), 404, 'not_found');
  });

  it('a known path with the wrong method is 405 with Allow', async () => {
    const res = await gw.gateway.inject({ method: 'GET', url: '/v1/chat' });
    envelope(res, 405, 'method_not_allowed');
    assert.equal(res.headers.allow, 'POST');
    const del = await gw.gateway.inject({ method: 'DELETE', url: '/health' });
    envelope(del, 405, 'method_not_allowed');
    assert.match(String(del.headers.allow), /GET/);
  });

  it('deeply nested metadata does not crash the gateway', async () => {
    let nested = '1';
    for (let i = 0; i < 500; i++) nested = `{"a":${nested}}`;
    const res = await raw(`{"messages":[{"role":"user","content":"x"}],"metadata":${nested}}`);
    assert.ok(res.statusCode === 200 || res.statusCode === 413, `status ${res.statusCode}`);
  });
});
