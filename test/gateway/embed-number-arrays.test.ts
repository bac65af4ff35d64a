import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { shareGateway } from '../helpers/gateway-harness.ts';

/**
 * An OpenAI-compatible upstream that ignores `encoding_format` and answers number arrays, as
 * many compatible servers do: the vectors reach the client as the float32s those numbers name,
 * and a malformed answer is a clean upstream error.
 */
describe('embeddings from an upstream that answers JSON number arrays', () => {
  let server: Server;
  let nextBody = '';
  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(nextBody));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });
  const gw = shareGateway(() => ({
    env: {
      PROVIDER_A_KIND: 'openai',
      PROVIDER_A_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      PROVIDER_A_API_KEY: 'mock-key',
    },
  }));
  after(() => server.close());

  const first = [0.0123456789012345, -0.98765432109876, 1.5e-7, -3e-12, 0.5];
  const second = [1, -2, 2.5e2, 1 / 3];

  it('answers the float32 each number names, for several inputs, in input order', async () => {
    // Items out of order, with whitespace and exponents as a Python server writes them.
    nextBody = `{"object": "list", "data": [
      {"object": "embedding", "index": 1, "embedding": [${second.map((n) => n.toExponential()).join(', ')}]},
      {"object": "embedding", "index": 0, "embedding": [${first.join(',\n ')}]}
    ], "model": "text-embedding-local", "usage": {"prompt_tokens": 7, "total_tokens": 7}}`;
    const res = await gw.embed({ input: ['a', 'b'], provider: 'provider-a' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.model, 'text-embedding-local');
    assert.equal(res.body.usage.tokensIn, 7);
    const [a, b] = res.body.embeddings as number[][];
    assert.deepEqual(a?.map(Math.fround), first.map(Math.fround));
    assert.deepEqual(b?.map(Math.fround), second.map(Math.fround));
  });

  it('answers a malformed body with 502 upstream_error, never a 500', async () => {
    for (const body of [
      '{"object":"list","data":[{"index":0,"embedding":[0.1,0.2,]}]}',
      '{"object":"list","data":[{"index":0,"embedding":[0.1,0.2]}]',
      '{"object":"list","data":[{"index":0,"embedding":[0.1,"x"]}]}',
      '{"object":"list","data":[{"index":0,"embedding":[1e400]}]}',
      '{"object":"list","data":[{"index":0,"embedding":[01]}]}',
    ]) {
      nextBody = body;
      const res = await gw.embed({ input: 'a', provider: 'provider-a' });
      assert.equal(res.status, 502, `${body}: ${res.text}`);
      assert.equal(res.body.error.code, 'upstream_error', body);
    }
  });
});
