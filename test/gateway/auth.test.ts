import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { APP, AUTH, SECRET, shareGateway } from '../helpers/gateway-harness.ts';

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
    await gw.app.governance.refresh();
    const res = await gw.chat(chatBody);
    assert.equal(res.status, 401);
  });
});

describe('credentials as <app>:<secret> in Authorization: Bearer or x-api-key', () => {
  const COLON_APP = 'colon-app';
  const COLON_SECRET = 'part-one:part-two:3';
  const gw = shareGateway({ env: { GATEWAY_APPS: `${APP}:${SECRET},${COLON_APP}:${COLON_SECRET}` } });

  const accepted: { name: string; headers: Record<string, string> }[] = [
    { name: 'Authorization: Bearer', headers: { authorization: `Bearer ${APP}:${SECRET}` } },
    { name: 'x-api-key', headers: { 'x-api-key': `${APP}:${SECRET}` } },
    { name: 'a secret containing colons', headers: { authorization: `Bearer ${COLON_APP}:${COLON_SECRET}` } },
    {
      name: 'a secret containing colons in x-api-key',
      headers: { 'x-api-key': `${COLON_APP}:${COLON_SECRET}` },
    },
    {
      name: 'every form, all naming the same credential',
      headers: {
        'x-gateway-app': APP,
        'x-gateway-secret': SECRET,
        authorization: `Bearer ${APP}:${SECRET}`,
        'x-api-key': `${APP}:${SECRET}`,
      },
    },
  ];
  for (const { name, headers } of accepted) {
    it(`accepts ${name}`, async () => {
      const res = await gw.chat(chatBody, { auth: false, headers });
      assert.equal(res.status, 200, res.text);
    });
  }

  it('the combined forms authenticate as the app they name (the usage is that app’s)', async () => {
    const res = await gw.chat(chatBody, {
      auth: false,
      headers: { 'x-api-key': `${COLON_APP}:${COLON_SECRET}` },
    });
    assert.equal(res.status, 200);
    const usage = await gw.get('/v1/usage', {
      auth: false,
      headers: { authorization: `Bearer ${COLON_APP}:${COLON_SECRET}` },
    });
    assert.equal(usage.status, 200, usage.text);
    assert.equal(usage.body.app, COLON_APP);
    assert.ok(usage.body.totals.requests >= 1, usage.text);
  });

  const refused: { name: string; headers: Record<string, string>; message: RegExp }[] = [
    {
      name: 'Bearer and x-api-key naming different secrets',
      headers: { authorization: `Bearer ${APP}:${SECRET}`, 'x-api-key': `${APP}:${SECRET}x` },
      message: /different credentials/,
    },
    {
      name: 'native headers and Bearer naming different apps',
      headers: { ...AUTH, authorization: `Bearer ${COLON_APP}:${COLON_SECRET}` },
      message: /different credentials/,
    },
    {
      name: 'a wrong secret by Bearer',
      headers: { authorization: `Bearer ${APP}:${SECRET}x` },
      message: /invalid/,
    },
    { name: 'a wrong secret by x-api-key', headers: { 'x-api-key': `${APP}:wrong` }, message: /invalid/ },
    {
      name: 'a colon secret cut at the last colon',
      headers: { 'x-api-key': `${COLON_APP}:part-one:part-two` },
      message: /invalid/,
    },
    {
      name: 'a Bearer with no app',
      headers: { authorization: `Bearer ${SECRET}` },
      message: /Bearer <app>:<secret>/,
    },
    {
      name: 'Basic authentication',
      headers: { authorization: 'Basic dGVzdDp0ZXN0' },
      message: /Bearer <app>:<secret>/,
    },
  ];
  for (const { name, headers, message } of refused) {
    it(`answers 401 for ${name}, naming the accepted forms and echoing no secret`, async () => {
      const res = await gw.chat(chatBody, { auth: false, headers });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'unauthorized');
      assert.match(res.body.error.message, message);
      assert.match(res.body.error.message, /x-api-key: <app>:<secret>/);
      assert.ok(!res.text.includes(SECRET) && !res.text.includes('part-one'), 'no secret is echoed');
    });
  }
});
