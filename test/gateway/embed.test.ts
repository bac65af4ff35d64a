import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shareGateway } from '../helpers/gateway-harness.ts';

describe('POST /v1/embed', () => {
  const gw = shareGateway();

  it('answers one vector per input string, equal for equal text, with usage (tokensOut 0)', async () => {
    const input = ['the cat sat', 'the dog ran', 'the cat sat'];
    const res = await gw.embed({ input });
    assert.equal(res.status, 200);
    const body = res.body;
    assert.match(body.id, /^emb_/);
    assert.equal(body.provider, 'provider-a');
    assert.equal(body.model, 'simulated-embed');
    assert.equal(body.embeddings.length, 3);
    for (const vector of body.embeddings) {
      assert.equal(vector.length, 256);
      const norm = Math.sqrt(vector.reduce((s: number, v: number) => s + v * v, 0));
      assert.ok(Math.abs(norm - 1) < 1e-9);
    }
    assert.deepEqual(body.embeddings[0], body.embeddings[2]);
    assert.notDeepEqual(body.embeddings[0], body.embeddings[1]);
    assert.equal(body.usage.tokensOut, 0);
    assert.ok(body.usage.tokensIn >= 9);
    assert.equal(body.usage.estimated, false);
    assert.ok(body.usage.estimatedCost > 0);
    assert.ok(body.latencyMs >= 0);
  });

  it('takes a single string as one input', async () => {
    const res = await gw.embed({ input: 'hello' });
    assert.equal(res.body.embeddings.length, 1);
  });

  it('refuses more inputs than the configured maximum with a field path', async () => {
    const input = Array.from({ length: 2049 }, (_, i) => `text ${i}`);
    const res = await gw.embed({ input });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.details[0].path, '/input');
  });
});
