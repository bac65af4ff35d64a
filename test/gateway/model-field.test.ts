import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { buildApplication } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import {
  listAddressableModels,
  resolveModelField,
} from '../../src/gateway/services/use-cases/address-model.ts';
import { ApiError } from '../../src/platform/errors.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { shareGateway, writeConfigFile } from '../helpers/gateway-harness.ts';

describe('resolveModelField on a running gateway', () => {
  const gw = shareGateway({
    file: {
      providers: {
        'provider-a': { kind: 'simulated', chatModel: 'sim-a', models: ['shared'] },
        'provider-b': { kind: 'simulated', chatModel: 'sim-b', models: ['shared'] },
        'provider-c': { kind: 'simulated', chatModel: 'sim-c' },
      },
      routing: {
        chat: [{ provider: 'provider-b' }, { provider: 'provider-a' }],
        tasks: { cheap: [{ provider: 'provider-c', model: 'sim-c-small' }] },
      },
    },
  });
  const deps = () => ({ config: gw.app.config, registry: gw.app.registry });

  it('reads the configuration the gateway runs with', () => {
    assert.deepEqual(resolveModelField(deps(), 'provider-a/anything'), {
      provider: 'provider-a',
      model: 'anything',
    });
    assert.deepEqual(resolveModelField(deps(), 'cheap'), { task: 'cheap' });
    assert.deepEqual(resolveModelField(deps(), 'shared'), { provider: 'provider-b', model: 'shared' });
    assert.deepEqual(resolveModelField(deps(), 'sim-c-small'), {
      provider: 'provider-c',
      model: 'sim-c-small',
    });
    assert.deepEqual(resolveModelField(deps(), 'unknown-model'), { model: 'unknown-model' });
  });

  it('an empty name is a 400 invalid_request at /model', () => {
    assert.throws(
      () => resolveModelField(deps(), ''),
      (error: unknown) =>
        error instanceof ApiError &&
        error.statusCode === 400 &&
        error.code === 'invalid_request' &&
        (error.details as { path: string }[])[0]?.path === '/model',
    );
  });

  it('the fields route a chat as the contract says', async () => {
    const cases: [string, string, string][] = [
      ['provider-a/pinned-model', 'provider-a', 'pinned-model'],
      ['cheap', 'provider-c', 'sim-c-small'],
      ['shared', 'provider-b', 'shared'],
      ['sim-a', 'provider-a', 'sim-a'],
      ['never-configured', 'provider-b', 'never-configured'],
    ];
    for (const [name, provider, model] of cases) {
      const fields = resolveModelField(deps(), name);
      const res = await gw.chat({ messages: [{ role: 'user', content: 'hi' }], ...fields });
      assert.equal(res.status, 200, `${name}: ${res.text}`);
      assert.equal(res.body.provider, provider, name);
      // The simulated provider reports `simulated-<model>` for a model not already so named.
      assert.equal(res.body.model, model.startsWith('simulated') ? model : `simulated-${model}`, name);
    }
  });

  it('lists what resolves on this gateway, and each listed id routes a chat to its slot', async () => {
    const listed = listAddressableModels(deps());
    const ids = listed.map((entry) => entry.id);
    for (const id of [
      'cheap',
      'shared',
      'sim-a',
      'sim-c-small',
      'provider-a/shared',
      'provider-c/sim-c-small',
    ]) {
      assert.ok(ids.includes(id), id);
    }
    for (const entry of listed.filter((e) => e.servedBy.chat !== undefined)) {
      const res = await gw.chat({
        messages: [{ role: 'user', content: 'hi' }],
        ...resolveModelField(deps(), entry.id),
      });
      assert.equal(res.status, 200, `${entry.id}: ${res.text}`);
      assert.equal(res.body.provider, entry.servedBy.chat, entry.id);
    }
  });
});

describe('model addressing at start-up', () => {
  it('warns of task routes the doors cannot reach or that hide a model', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const file = writeConfigFile({
      providers: { 'provider-b': { kind: 'simulated', chatModel: 'sim-b', models: ['review'] } },
      routing: {
        tasks: { review: [{ provider: 'provider-a' }], 'provider-c/odd': [{ provider: 'provider-c' }] },
      },
    });
    const config = loadConfig({ DATA_DIR: ':memory:', SURFACES: 'gateway', CONFIG_FILE: file }, []);
    const app = await buildApplication(config, createLogger({ level: 'warn', destination }));
    await app.close();
    const warnings = lines.map((line) => JSON.parse(line).msg as string);
    assert.ok(
      warnings.some((m) => /"review" shadows the model "review" of provider-b/.test(m)),
      warnings.join('\n'),
    );
    assert.ok(
      warnings.some((m) => /"provider-c\/odd" cannot be named/.test(m)),
      warnings.join('\n'),
    );
  });
});
