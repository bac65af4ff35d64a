import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { JsonNumberArray } from '../../src/gateway/domain/json-number-array.ts';
import { embeddingNumberText } from '../helpers/embedding-number-text.ts';
import { shareGateway } from '../helpers/gateway-harness.ts';

/**
 * An OpenAI-compatible upstream that ignores `encoding_format` and answers number arrays, as
 * many compatible servers do: the vectors reach the client as the numbers the upstream sent
 * (copied as they came), as float32 where the client asks for base64, and a malformed or hostile
 * answer is a clean upstream error.
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

  /** The upstream's answer for these vector texts (each the text between an array's brackets). */
  function upstreamBody(vectors: readonly string[], space = ''): string {
    const items = vectors.map(
      (numbers, index) =>
        `{"object":${space}"embedding", "index":${index},${space}"embedding":${space}[${numbers}]${space}}`,
    );
    return `{"object":"list","data":[${items.join(`,${space}`)}],"model":"local","usage":{"prompt_tokens":7,"total_tokens":7}}`;
  }

  /** Native /v1/embed, the door's float and the door's base64, for the current upstream body. */
  async function allAnswers(inputs: number) {
    const input = Array.from({ length: inputs }, (_, i) => `text ${i}`);
    const native = await gw.embed({ input, provider: 'provider-a' });
    const float = await gw.post('/v1/embeddings', {
      model: 'provider-a/local',
      input,
      encoding_format: 'float',
    });
    const base64 = await gw.post('/v1/embeddings', {
      model: 'provider-a/local',
      input,
      encoding_format: 'base64',
    });
    return { native, float, base64 };
  }

  function decodeBase64(text: string): number[] {
    const bytes = Buffer.from(text, 'base64');
    return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
  }

  it('answers the numbers the upstream sent, for several inputs, in input order', async () => {
    // Items out of order, with whitespace and exponents as a Python server writes them.
    nextBody = `{"object": "list", "data": [
      {"object": "embedding", "index": 1, "embedding": [${second.map((n) => n.toExponential()).join(', ')}]},
      {"object": "embedding", "index": 0, "embedding": [${first.join(',\n ')}]}
    ], "model": "text-embedding-local", "usage": {"prompt_tokens": 7, "total_tokens": 7}}`;
    const res = await gw.embed({ input: ['a', 'b'], provider: 'provider-a' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.model, 'text-embedding-local');
    assert.equal(res.body.usage.tokensIn, 7);
    assert.deepEqual(res.body.embeddings, [first, second]);
  });

  it('passes on any numbers as the upstream wrote them: native and float read back the same, base64 their float32', async () => {
    // Mostly numbers an embedding holds; now and then one past 10^38, which the whole-body parse reads.
    const number = embeddingNumberText({ pastBounds: true });
    const vector = fc
      .tuple(fc.array(fc.tuple(number, fc.constantFrom('', ' ', '\n  ')), { minLength: 1, maxLength: 12 }))
      .map(([items]) => items.map(([n, space]) => `${space}${n}`).join(','));
    let passedAsBytes = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(vector, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        async (vectors, spaced) => {
          nextBody = upstreamBody(vectors, spaced ? ' ' : '');
          const sent = vectors.map((numbers) => JSON.parse(`[${numbers}]`) as number[]);
          // Every vector within JsonNumberArray's bounds: the body's vectors go through as bytes.
          const asBytes = vectors.every(
            (numbers) => JsonNumberArray.read(Buffer.from(`[${numbers}]`), 0) !== undefined,
          );
          if (asBytes) passedAsBytes++;
          const { native, float, base64 } = await allAnswers(vectors.length);
          assert.equal(native.status, 200, native.text);
          assertSameNumbers(native.body.embeddings as number[][], sent, asBytes);
          assert.equal(float.status, 200, float.text);
          const floats = (float.body as { data: { index: number; embedding: number[] }[] }).data;
          assert.deepEqual(
            floats.map((item) => item.index),
            sent.map((_, i) => i),
          );
          assertSameNumbers(
            floats.map((item) => item.embedding),
            sent,
            asBytes,
          );
          assert.equal(base64.status, 200, base64.text);
          const packed = (base64.body as { data: { embedding: string }[] }).data;
          assert.deepEqual(
            packed.map((item) => decodeBase64(item.embedding)),
            sent.map((numbers) => numbers.map(Math.fround)),
          );
        },
      ),
      { numRuns: 60 },
    );
    assert.ok(passedAsBytes >= 15, `only ${passedAsBytes} bodies went through as bytes`);
  });

  /**
   * Number for number, the sign of zero included where the numbers came through as bytes; a body
   * with a number past 10^38 is read by the whole-body parse and written as JSON.stringify writes
   * it, which writes -0 as 0.
   */
  function assertSameNumbers(answered: number[][], sent: number[][], asBytes: boolean): void {
    assert.equal(answered.length, sent.length);
    sent.forEach((numbers, i) => {
      const got = answered[i] as number[];
      assert.equal(got.length, numbers.length);
      numbers.forEach((n, j) => {
        if (asBytes) assert.ok(Object.is(got[j], n), `${got[j]} for ${n}`);
        else assert.ok(got[j] === n, `${got[j]} for ${n}`);
      });
    });
  }

  it('answers a malformed or hostile body with 502 upstream_error, never a 500', async () => {
    for (const body of [
      '{"object":"list","data":[{"index":0,"embedding":[0.1,0.2,]}]}',
      '{"object":"list","data":[{"index":0,"embedding":[0.1,0.2]}]',
      '{"object":"list","data":[{"index":0,"embedding":[0.1,"x"]}]}',
      '{"object":"list","data":[{"index":0,"embedding":[1e400]}]}',
      '{"object":"list","data":[{"index":0,"embedding":[1e999]}]}',
      '{"object":"list","data":[{"index":0,"embedding":[NaN]}]}',
      '{"object":"list","data":[{"index":0,"embedding":[Infinity]}]}',
      '{"object":"list","data":[{"index":0,"embedding":[-Infinity,1]}]}',
      '{"object":"list","data":[{"index":0,"embedding":[01]}]}',
      '{"object":"list","data":[{"index":0,"embedding":[[0.1],[0.2]]}]}',
      '{"object":"list","data":[{"index":0,"embedding":[0.1]}],"x":1}]}', // `]}` injected after the vector
      '{"object":"list","data":[{"index":0,"embedding":[0.1]}]},"evil":[1]}',
      '{"object":"list","data":[{"index":0,"embedding":[0.1, 0.2',
      '{"object":"list","data":[{"index":0,"embedding":[]}]}',
      '{"object":"list","data":[{"index":0,"embedding":["0.1"]}]}',
      '{"object":"list","data":[{"index":0,"embedding":[0.1]},{"index":1,"embedding":[0.2]}]}', // two for one input
    ]) {
      nextBody = body;
      const res = await gw.embed({ input: 'a', provider: 'provider-a' });
      assert.equal(res.status, 502, `${body}: ${res.text}`);
      assert.equal(res.body.error.code, 'upstream_error', body);
    }
  });
});
