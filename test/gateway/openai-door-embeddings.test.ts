import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';

describe('OpenAI door: embeddings through the official SDK', () => {
  const gw = shareGateway();
  let client: OpenAI;
  before(async () => {
    await gw.gateway.listen({ port: 0, host: '127.0.0.1' });
    client = new OpenAI({
      baseURL: `http://127.0.0.1:${(gw.gateway.server.address() as AddressInfo).port}/v1`,
      apiKey: `${APP}:${SECRET}`,
      maxRetries: 0,
    });
  });

  const texts = ['the quick brown fox', 'jumps over the lazy dog'];

  /** The native route's vectors for the same texts: the door must carry the same numbers. */
  async function nativeVectors(): Promise<number[][]> {
    const reply = await gw.embed({ input: texts });
    assert.equal(reply.status, 200);
    return (reply.body as { embeddings: number[][] }).embeddings;
  }

  it('float: the list shape, in input order, the same numbers as the native route', async () => {
    const { data: answer, response } = await client.embeddings
      .create({ model: 'text-embedding-3-small', input: texts, encoding_format: 'float' })
      .withResponse();
    assert.equal(answer.object, 'list');
    assert.equal(typeof answer.model, 'string');
    assert.deepEqual(
      answer.data.map((d) => [d.object, d.index]),
      [
        ['embedding', 0],
        ['embedding', 1],
      ],
    );
    assert.deepEqual(
      answer.data.map((d) => d.embedding),
      await nativeVectors(),
    );
    assert.ok(answer.usage.prompt_tokens > 0);
    assert.equal(answer.usage.total_tokens, answer.usage.prompt_tokens);
    assert.match(response.headers.get('x-gateway-cost-usd') ?? '', /^[0-9.e-]+$/);
  });

  it('base64 (the SDK default, decoded by it): the same vectors at float32 precision', async () => {
    const raw = await gw.post('/v1/embeddings', { model: 'm', input: texts, encoding_format: 'base64' });
    const encoded = (raw.body as { data: { embedding: unknown }[] }).data[0]?.embedding;
    assert.equal(typeof encoded, 'string', 'base64 arrives as text');
    const answer = await client.embeddings.create({ model: 'text-embedding-3-small', input: texts });
    const native = await nativeVectors();
    assert.equal(answer.data.length, 2);
    answer.data.forEach((item, i) => {
      const expected = native[i] as number[];
      assert.equal(item.embedding.length, expected.length);
      assert.deepEqual(item.embedding, expected.map(Math.fround));
    });
  });

  it('dimensions shortens the vectors', async () => {
    const answer = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: 'short',
      dimensions: 8,
      encoding_format: 'float',
    });
    assert.equal(answer.data[0]?.embedding.length, 8);
  });

  it('refuses token arrays by name', async () => {
    await assert.rejects(
      client.embeddings.create({ model: 'text-embedding-3-small', input: [[1, 2, 3]] }),
      (error: unknown) => error instanceof OpenAI.BadRequestError && error.param === 'input[0]',
    );
  });
});
