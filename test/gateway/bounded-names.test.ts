import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_MODEL_NAME_LENGTH } from '../../src/gateway/domain/model-addressing.ts';
import { APP, shareGateway } from '../helpers/gateway-harness.ts';

const messages = [{ role: 'user', content: 'hi' }];

describe('model and task names are bounded before they reach the ledger', () => {
  const gw = shareGateway();

  it('refuses a longer model or task on the native routes with the 400 envelope', async () => {
    const long = 'm'.repeat(MAX_MODEL_NAME_LENGTH + 1);
    for (const [path, body] of [
      ['/v1/chat', { messages, model: long }],
      ['/v1/chat', { messages, task: long }],
      ['/v1/json', { messages, schema: { type: 'object' }, model: long }],
      ['/v1/embed', { input: 'x', model: long }],
    ] as const) {
      const res = await gw.post(path, body);
      assert.equal(res.status, 400, path);
      assert.equal(res.body.error.code, 'invalid_request');
      assert.match(res.body.error.details[0].path, /^\/(model|task)$/);
    }
  });

  it('keeps at most that many characters of a model an upstream reports', async () => {
    // The simulated slot answers `simulated-<model>`: 10 characters longer than the longest accepted name.
    const res = await gw.chat({ messages, model: 'x'.repeat(MAX_MODEL_NAME_LENGTH) });
    assert.equal(res.status, 200);
    await gw.app.recorder.flush();
    const [row] = (await gw.app.storage.usage.readRecords({ app: APP, limit: 100 })).filter(
      (record) => record.id === res.body.id,
    );
    assert.equal(row?.model?.length, MAX_MODEL_NAME_LENGTH);
    assert.ok(row?.attempts.every((attempt) => attempt.model.length <= MAX_MODEL_NAME_LENGTH));
  });
});
