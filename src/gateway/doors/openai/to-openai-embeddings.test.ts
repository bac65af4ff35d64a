import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JsonNumberArray } from '../../domain/json-number-array.ts';
import { NO_CACHE_USAGE } from '../../domain/usage.ts';
import { embeddingsBody, float32Base64 } from './to-openai-embeddings.ts';

const usage = { tokensIn: 5, tokensOut: 0, estimatedCost: 0, estimated: false, ...NO_CACHE_USAGE };

function decode(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i += 4) out.push(bytes.readFloatLE(i));
  return out;
}

describe('OpenAI embeddings body', () => {
  it('float: numbers from JSON as they are, float32 vectors with the digits they need', () => {
    const f32 = Float32Array.from([0.1, -2.5e-8, 3]);
    const body = JSON.parse(
      embeddingsBody({ model: 'm\u00e9"', embeddings: [[0.25, -1], f32], usage }, 'float').toString('utf8'),
    );
    const second: number[] = body.data[1].embedding;
    assert.deepEqual(body, {
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0.25, -1] },
        { object: 'embedding', index: 1, embedding: second },
      ],
      model: 'm\u00e9"',
      usage: { prompt_tokens: 5, total_tokens: 5 },
    });
    assert.deepEqual(Float32Array.from(second), f32);
  });

  it('base64: little-endian float32, whatever the vector came as', () => {
    assert.deepEqual(decode(float32Base64([0.5, -1, 2])), [0.5, -1, 2]);
    assert.deepEqual(decode(float32Base64([0.1])), [Math.fround(0.1)]);
    const body = JSON.parse(
      embeddingsBody({ model: 'm', embeddings: [Float32Array.from([1, 2])], usage }, 'base64').toString(),
    );
    assert.deepEqual(decode(body.data[0].embedding), [1, 2]);
    assert.equal(body.data[0].embedding, Buffer.from([0, 0, 0x80, 0x3f, 0, 0, 0, 0x40]).toString('base64'));
  });

  it("an upstream's JSON number array: its bytes as they came with float, their float32 with base64", () => {
    const upstream = Buffer.from('{"embedding":[ -0, 1e-7,0.12345678901234567 ,3E2]}');
    const vector = JsonNumberArray.read(upstream, upstream.indexOf('['));
    assert.ok(vector !== undefined);
    const float = embeddingsBody({ model: 'm', embeddings: [vector], usage }, 'float').toString('utf8');
    assert.ok(float.includes('"embedding":[ -0, 1e-7,0.12345678901234567 ,3E2]}'), float);
    assert.ok(Object.is(JSON.parse(float).data[0].embedding[0], -0));
    const base64 = JSON.parse(
      embeddingsBody({ model: 'm', embeddings: [vector], usage }, 'base64').toString(),
    );
    assert.deepEqual(
      decode(base64.data[0].embedding),
      [-0, 1e-7, Number('0.12345678901234567'), 300].map(Math.fround),
    );
  });
});
