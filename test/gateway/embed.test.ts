import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTH, type Harness, startHarness } from '../helpers/harness.ts';

describe('POST /v1/embed', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('answers one vector per input string, equal for equal text, with usage (tokensOut 0)', async () => {
    const input = ['the cat sat', 'the dog ran', 'the cat sat'];
    const res = await h.gateway.inject({
      method: 'POST',
      url: '/v1/embed',
      headers: AUTH,
      payload: { input },
    });
    assert.equal(res.statusCode, 200);
    const body = res.json();
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
    const res = await h.gateway.inject({
      method: 'POST',
      url: '/v1/embed',
      headers: AUTH,
      payload: { input: 'hello' },
    });
    assert.equal(res.json().embeddings.length, 1);
  });

  it('refuses more inputs than the configured maximum with a field path', async () => {
    const input = Array.from({ length: 2049 }, (_, i) => `text ${i}`);
    const res = await h.gateway.inject({
      method: 'POST',
      url: '/v1/embed',
      headers: AUTH,
      payload: { input },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.details[0].path, '/input');
  });
});
