import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeConfigFile } from '../../../test/helpers/gateway-harness.ts';
import { loadConfig } from '../../config/load-config.ts';
import type { Tokenizer } from '../domain/token-count.ts';
import type { RequestGuards } from '../guardrails/guardrails.ts';
import { buildRegistry } from '../providers/registry.ts';
import { vendorRoute } from './vendor-plan.ts';

const ENV = {
  DATA_DIR: ':memory:',
  PROVIDER_A_KIND: 'openai',
  PROVIDER_A_BASE_URL: 'http://127.0.0.1:9/v1',
  PROVIDER_A_API_KEY: 'k',
  PROVIDER_C_KIND: 'anthropic',
  PROVIDER_C_BASE_URL: 'http://127.0.0.1:9',
  PROVIDER_C_API_KEY: 'k',
};

const NO_GUARDS = { input: [], output: [] } as unknown as RequestGuards;

function route(env: Record<string, string> = {}, guards: RequestGuards = NO_GUARDS) {
  const config = loadConfig({ ...ENV, ...env }, []);
  const registry = buildRegistry(config, { tokenizer: {} as Tokenizer });
  return vendorRoute({ config, registry, guardrails: { guardsFor: () => guards }, teamOf: () => undefined });
}

const models = (...names: (string | undefined)[]) => new Set(names);

describe('where a batch runs (vendor-plan.ts)', () => {
  it("a batch pinned to one slot of its own vendor's format goes to that vendor", () => {
    const plan = route();
    assert.equal(
      plan.slotFor('app', 'openai', '/v1/chat/completions', models('gpt-4o-mini', 'provider-a/x')),
      'provider-a',
    );
    assert.equal(
      plan.slotFor('app', 'anthropic', '/v1/messages', models('claude-3-5-haiku-latest')),
      'provider-c',
    );
    assert.equal(plan.upstreamModel('/v1/chat/completions', 'provider-a/gpt-4o'), 'gpt-4o');
  });

  it('the gateway runs the rest: mixed slots, a simulated slot, the other vendor, no model, turned off, guards', () => {
    const plan = route();
    const chat = '/v1/chat/completions';
    assert.equal(plan.slotFor('app', 'openai', chat, models('gpt-4o-mini', 'claude-3-5-haiku-latest')), null);
    assert.equal(plan.slotFor('app', 'openai', chat, models('provider-b/sim')), null, 'simulated');
    assert.equal(
      plan.slotFor('app', 'openai', chat, models('claude-3-5-haiku-latest')),
      null,
      'OpenAI format, Anthropic slot',
    );
    assert.equal(plan.slotFor('app', 'anthropic', '/v1/messages', models('gpt-4o-mini')), null);
    assert.equal(plan.slotFor('app', 'openai', chat, models(undefined)), null, 'the default route');
    assert.equal(
      plan.slotFor('app', 'openai', chat, models('some-unlisted-model')),
      null,
      'the default route',
    );
    const off = route({ CONFIG_FILE: writeConfigFile({ batches: { vendorBatches: false } }) });
    assert.equal(off.slotFor('app', 'openai', chat, models('gpt-4o-mini')), null, 'vendorBatches: false');
    const guarded = route({}, { input: [{}], output: [] } as unknown as RequestGuards);
    assert.equal(guarded.slotFor('app', 'openai', chat, models('gpt-4o-mini')), null, 'a guard applies');
  });
});
