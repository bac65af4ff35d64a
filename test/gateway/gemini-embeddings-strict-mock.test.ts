import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { embeddingNumberText } from '../helpers/embedding-number-text.ts';
import { shareGateway } from '../helpers/gateway-harness.ts';
import { MockGeminiServer, mockEmbedding } from '../helpers/mock-gemini-server.ts';

const MODEL = 'gemini-embedding-001';

/**
 * Gemini's batchEmbedContents answers through the gateway (strict mock): the native /v1/embed and
 * the OpenAI door's `float` answer carry the numbers as Google spelled them (its bytes, copied),
 * the door's `base64` their float32, and `dimensions` reaches Google as outputDimensionality.
 */
describe('Gemini embeddings through the gateway (strict mock)', () => {
  let mock: MockGeminiServer;
  before(async () => {
    mock = await MockGeminiServer.start({ apiKey: 'gemini-key' });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'gemini', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: 'gemini-key' },
  }));
  after(() => mock.close());
  afterEach(() => mock.reset());

  /** Native /v1/embed, the door's float and the door's base64 (with `dimensions` if given), for the same inputs. */
  async function allAnswers(input: string[], dimensions?: number) {
    const extra = dimensions === undefined ? {} : { dimensions };
    const native = await gw.embed({ input, provider: 'provider-a' });
    const door = { model: `provider-a/${MODEL}`, input, ...extra };
    const float = await gw.post('/v1/embeddings', { ...door, encoding_format: 'float' });
    const base64 = await gw.post('/v1/embeddings', { ...door, encoding_format: 'base64' });
    assert.equal(native.status, 200, native.text);
    assert.equal(float.status, 200, float.text);
    assert.equal(base64.status, 200, base64.text);
    const floats = (float.body as { data: { index: number; embedding: number[] }[] }).data;
    assert.deepEqual(
      floats.map((item) => item.index),
      input.map((_, i) => i),
    );
    const packed = (base64.body as { data: { embedding: string }[] }).data;
    return {
      native,
      float,
      nativeVectors: native.body.embeddings as number[][],
      floatVectors: floats.map((item) => item.embedding),
      base64Vectors: packed.map((item) => decodeBase64(item.embedding)),
    };
  }

  function decodeBase64(text: string): number[] {
    const bytes = Buffer.from(text, 'base64');
    return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
  }

  /** Number for number, the sign of zero included. */
  function assertSameNumbers(answered: number[][], sent: number[][]): void {
    assert.equal(answered.length, sent.length);
    sent.forEach((numbers, i) => {
      const got = answered[i] as number[];
      assert.equal(got.length, numbers.length);
      numbers.forEach((n, j) => {
        assert.ok(Object.is(got[j], n), `${got[j]} for ${n} at [${i}][${j}]`);
      });
    });
  }

  it('answers the digits Google sent, in input order: native and float copy them, base64 is their float32', async () => {
    // Spellings a parse and a print would change, as a different vector for each input.
    const spellings = ['-0', '1E-7', '0.10', '0.1000000000000000055511151231257827', '-3.0517578125e-05'];
    const spelled = (text: string) => spellings.slice(Number(text)).join(',\n        ');
    mock.embeddingNumbers = spelled;
    const input = ['0', '1', '2', '3', '4'];
    const sent = input.map((text) => JSON.parse(`[${spelled(text)}]`) as number[]);
    const { native, float, nativeVectors, floatVectors, base64Vectors } = await allAnswers(input);
    for (const text of input) {
      // The bytes between the brackets, Google's layout included.
      const bytes = `[\n        ${spelled(text)}\n      ]`;
      assert.ok(native.text.includes(bytes), `native answer holds ${JSON.stringify(bytes)}`);
      assert.ok(float.text.includes(bytes), `float answer holds ${JSON.stringify(bytes)}`);
    }
    assertSameNumbers(nativeVectors, sent);
    assertSameNumbers(floatVectors, sent);
    assert.deepEqual(
      base64Vectors,
      sent.map((numbers) => numbers.map(Math.fround)),
    );
  });

  it('passes on 3072-number vectors printed as doubles, and any numbers within bounds, unchanged', async () => {
    const number = embeddingNumberText();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(number, { minLength: 1, maxLength: 3072, size: 'max' }), {
          minLength: 1,
          maxLength: 4,
        }),
        async (vectors) => {
          const byInput = new Map(vectors.map((numbers, i) => [`text ${i}`, numbers.join(',')]));
          mock.embeddingNumbers = (text) => byInput.get(text) as string;
          const input = [...byInput.keys()];
          const sent = vectors.map((numbers) => numbers.map((n) => JSON.parse(n) as number));
          const { nativeVectors, floatVectors, base64Vectors } = await allAnswers(input);
          assertSameNumbers(nativeVectors, sent);
          assertSameNumbers(floatVectors, sent);
          assert.deepEqual(
            base64Vectors,
            sent.map((numbers) => numbers.map(Math.fround)),
          );
        },
      ),
      { numRuns: 20 },
    );
  });

  it("sends the door's dimensions as outputDimensionality and answers the vectors Google shortened, as before", async () => {
    // The mock shortens as Google does when asked (the native route has no `dimensions`).
    mock.embeddingNumbers = (text) => mockEmbedding(text).slice(0, 3).join(',');
    const input = ['a', 'b'];
    const { nativeVectors, floatVectors, base64Vectors } = await allAnswers(input, 3);
    assert.deepEqual(
      mock.requests.map((request) =>
        request.body.requests.map((r: { outputDimensionality?: number }) => r.outputDimensionality),
      ),
      [
        [undefined, undefined],
        [3, 3],
        [3, 3],
      ],
    );
    const sent = input.map((text) => mockEmbedding(text).slice(0, 3));
    assertSameNumbers(nativeVectors, sent);
    assertSameNumbers(floatVectors, sent);
    assert.deepEqual(
      base64Vectors,
      sent.map((numbers) => numbers.map(Math.fround)),
    );
  });

  it('answers a malformed or hostile body with 502 upstream_error, never a 500', async () => {
    for (const body of [
      '{"embeddings":[{"values":[0.1,0.2,]}]}',
      '{"embeddings":[{"values":[0.1,0.2]}]',
      '{"embeddings":[{"values":[0.1,"x"]}]}',
      '{"embeddings":[{"values":[1e400]}]}',
      '{"embeddings":[{"values":[NaN]}]}',
      '{"embeddings":[{"values":[-Infinity,1]}]}',
      '{"embeddings":[{"values":[01]}]}',
      '{"embeddings":[{"values":[[0.1],[0.2]]}]}',
      '{"embeddings":[{"values":[0.1]}],"x":1}]}', // `]}` injected after the vector
      '{"embeddings":[{"values":[0.1]}]},"evil":[1]}',
      '{"embeddings":[{"values":[0.1, 0.2',
      '{"embeddings":[{"values":[]}]}',
      '{"embeddings":[{"values":["0.1"]}]}',
      '{"embeddings":[{"values":[0.1]},{"values":[0.2]}]}', // two for one input
    ]) {
      // Every attempt the gateway makes gets the body.
      mock.failNext(4, { status: 200, body });
      const res = await gw.embed({ input: 'a', provider: 'provider-a' });
      assert.equal(res.status, 502, `${body}: ${res.text}`);
      assert.equal(res.body.error.code, 'upstream_error', body);
      mock.reset();
    }
  });
});
