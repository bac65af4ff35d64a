import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';

const chatBody = { messages: [{ role: 'user', content: 'hi' }] };

describe('credentials on /v1 paths', () => {
  const gw = shareGateway();

  const cases: { name: string; headers: Record<string, string> }[] = [
    { name: 'no headers', headers: {} },
    { name: 'app only', headers: { 'x-gateway-app': APP } },
    { name: 'secret only', headers: { 'x-gateway-secret': SECRET } },
    { name: 'wrong secret', headers: { 'x-gateway-app': APP, 'x-gateway-secret': `${SECRET}x` } },
    { name: 'unknown app', headers: { 'x-gateway-app': 'nobody', 'x-gateway-secret': SECRET } },
    { name: 'empty secret', headers: { 'x-gateway-app': APP, 'x-gateway-secret': '' } },
    { name: 'secret as bearer token', headers: { 'x-gateway-app': APP, authorization: `Bearer ${SECRET}` } },
  ];
  for (const path of ['/v1/chat', '/v1/embed', '/v1/json']) {
    for (const { name, headers } of cases) {
      it(`${path} answers 401 with the envelope for ${name}`, async () => {
        const res = await gw.post(path, chatBody, { auth: false, headers });
        assert.equal(res.status, 401);
        assert.equal(res.body.error.code, 'unauthorized');
        assert.equal(typeof res.body.error.message, 'string');
        assert.ok(!res.text.includes(SECRET), 'the secret is never echoed');
      });
    }
  }

  it('checks credentials before the body: an unauthenticated malformed body is 401, not 400', async () => {
    const res = await gw.gateway.inject({
      method: 'POST',
      url: '/v1/chat',
      headers: { 'content-type': 'application/json' },
      payload: '{nope',
    });
    assert.equal(res.statusCode, 401);
  });

  it('accepts the registered pair, and again from the verification cache', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await gw.chat(chatBody);
      assert.equal(res.status, 200);
    }
  });

  it('GET /health needs no credentials', async () => {
    const res = await gw.get('/health', { auth: false });
    assert.equal(res.status, 200);
    const body = res.body;
    assert.equal(body.ok, true);
    assert.equal(body.service, 'inference-gateway');
    assert.equal(body.requestId, res.headers['x-request-id']);
  });

  it('a revoked app is refused once the verifier re-reads the store', async () => {
    await gw.app.storage.apps.revokeApp(APP, Date.now());
    gw.app.verifier.forget(APP);
    const res = await gw.chat(chatBody);
    assert.equal(res.status, 401);
  });
});
