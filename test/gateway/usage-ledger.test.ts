import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shareGateway } from '../helpers/gateway-harness.ts';

const messages = [{ role: 'user', content: 'count me' }];

describe('usage ledger records every request', () => {
  const gw = shareGateway();

  it('writes one row per request, with attempts, whose totals equal the responses', async () => {
    const responses: any[] = [];
    responses.push((await gw.chat({ messages, task: 't1' })).body);
    responses.push((await gw.embed({ input: ['a', 'b'] })).body);
    responses.push(
      (await gw.chat({ messages, metadata: { simulated: { fault: 'server_error', faultAttempts: 1 } } }))
        .body,
    );
    const { events } = await gw.stream({ messages });
    responses.push(events.at(-1)?.data as any);
    await gw.app.recorder.flush();
    const rows = await gw.app.storage.usage.readRecords({ limit: 100 });
    for (const response of responses) {
      const row = rows.find((r) => r.id === response.id);
      assert.ok(row, `row for ${response.id}`);
      assert.equal(row.app, 'test-app');
      assert.equal(row.status, 200);
      assert.equal(row.tokensIn, response.usage.tokensIn);
      assert.equal(row.tokensOut, response.usage.tokensOut);
      assert.equal(row.costUsd, response.usage.estimatedCost);
      assert.equal(row.provider, response.provider);
      assert.equal(row.model, response.model);
    }
    assert.equal(rows.find((r) => r.id === responses[0].id)?.task, 't1');
    const retried = rows.find((r) => r.id === responses[2].id);
    assert.deepEqual(
      retried?.attempts.map((a) => a.outcome),
      ['http_500', 'ok'],
    );
    assert.equal(rows.find((r) => r.id === responses[3].id)?.operation, 'chat_stream');
  });

  it('records failed requests with their status and error code', async () => {
    const res = await gw.chat({
      messages,
      provider: 'provider-b',
      metadata: { simulated: { fault: 'unauthorized' } },
    });
    assert.equal(res.status, 502);
    await gw.app.recorder.flush();
    const rows = await gw.app.storage.usage.readRecords({ limit: 100 });
    const failed = rows.find((r) => r.status === 502);
    assert.equal(failed?.errorCode, 'upstream_error');
    assert.equal(failed?.attempts[0]?.upstreamStatus, 401);
  });
});
