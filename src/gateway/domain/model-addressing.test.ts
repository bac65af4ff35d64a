import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProviderSlot, RoutingSettings } from '../../config/config-types.ts';
import {
  type AddressedOperation,
  addressModel,
  MAX_MODEL_NAME_LENGTH,
  type ModelAddress,
  slotsInRouteOrder,
} from './model-addressing.ts';
import type { SlotProfile } from './routing.ts';

const slots: Record<ProviderSlot, SlotProfile> = {
  'provider-a': {
    chatModel: 'gpt-4o-mini',
    embedModel: 'text-embedding-3-small',
    models: ['gpt-4o', 'shared-model'],
    canEmbed: true,
    canCallTools: true,
  },
  'provider-b': {
    chatModel: 'claude-haiku-4-5',
    embedModel: undefined,
    models: ['shared-model', 'summarize'],
    canEmbed: false,
    canCallTools: true,
  },
  'provider-c': {
    chatModel: 'gemini-2.5-flash',
    embedModel: 'gemini-embedding-001',
    models: ['shared-model'],
    canEmbed: true,
    canCallTools: true,
  },
};

// provider-b comes first in the default chat route, provider-c first in the embedding route.
const routing: RoutingSettings = {
  chat: [{ provider: 'provider-b' }, { provider: 'provider-a' }],
  embed: [{ provider: 'provider-c' }, { provider: 'provider-a' }],
  tasks: {
    summarize: [{ provider: 'provider-b', model: 'claude-sonnet-4-5' }],
    code: [{ provider: 'provider-a', model: 'gpt-4.1' }],
  },
};

function address(name: string, operation: AddressedOperation = 'chat'): ModelAddress {
  const result = addressModel(name, operation, routing, slots);
  assert.ok(result.ok, result.ok ? '' : result.message);
  return result.address;
}

function refusal(name: string): string {
  const result = addressModel(name, 'chat', routing, slots);
  assert.equal(result.ok, false, name);
  return result.ok ? '' : result.message;
}

describe('addressModel', () => {
  it('<slot>/<model> pins that slot and model, split at the first slash', () => {
    assert.deepEqual(address('provider-b/claude-opus-4-1'), {
      provider: 'provider-b',
      model: 'claude-opus-4-1',
    });
    assert.deepEqual(address('provider-c/models/gemini-2.5-pro'), {
      provider: 'provider-c',
      model: 'models/gemini-2.5-pro',
    });
    // Pinned even when another slot owns the model, and even for a model that names a task.
    assert.deepEqual(address('provider-a/shared-model'), { provider: 'provider-a', model: 'shared-model' });
    assert.deepEqual(address('provider-a/summarize'), { provider: 'provider-a', model: 'summarize' });
    assert.deepEqual(address('provider-a/text-embedding-3-small', 'embed'), {
      provider: 'provider-a',
      model: 'text-embedding-3-small',
    });
  });

  it('a prefix that is not a slot is part of a plain model name', () => {
    assert.deepEqual(address('provider-x/gpt-4o'), { model: 'provider-x/gpt-4o' });
    assert.deepEqual(address('meta-llama/llama-3.1-8b'), { model: 'meta-llama/llama-3.1-8b' });
    assert.deepEqual(address('/gpt-4o'), { model: '/gpt-4o' });
    assert.deepEqual(address('PROVIDER-A/gpt-4o'), { model: 'PROVIDER-A/gpt-4o' }, 'slot names are exact');
  });

  it('a task route name runs that route, before any model of that name', () => {
    assert.deepEqual(address('code'), { task: 'code' });
    // provider-b also lists a model called `summarize`: the route wins.
    assert.deepEqual(address('summarize'), { task: 'summarize' });
  });

  it('embeddings have no task routes: a task name is a model name there', () => {
    assert.deepEqual(address('code', 'embed'), { model: 'code' });
  });

  it('a name Object.prototype has is not a task', () => {
    assert.deepEqual(address('constructor'), { model: 'constructor' });
    assert.deepEqual(address('__proto__'), { model: '__proto__' });
  });

  it('a configured model goes to the slot that lists it: chat model, models, or a route candidate', () => {
    assert.deepEqual(address('gpt-4o-mini'), { provider: 'provider-a', model: 'gpt-4o-mini' });
    assert.deepEqual(address('gpt-4o'), { provider: 'provider-a', model: 'gpt-4o' });
    assert.deepEqual(address('gemini-2.5-flash'), { provider: 'provider-c', model: 'gemini-2.5-flash' });
    // Only the `code` task route names gpt-4.1, for provider-a.
    assert.deepEqual(address('gpt-4.1'), { provider: 'provider-a', model: 'gpt-4.1' });
    assert.deepEqual(address('claude-sonnet-4-5'), { provider: 'provider-b', model: 'claude-sonnet-4-5' });
  });

  it('a model listed by several slots goes to the first in the default route’s order', () => {
    assert.deepEqual(address('shared-model'), { provider: 'provider-b', model: 'shared-model' });
    // For embeddings the embedding route's order counts, and a slot that cannot embed owns nothing.
    assert.deepEqual(address('shared-model', 'embed'), { provider: 'provider-c', model: 'shared-model' });
    const flipped: RoutingSettings = { ...routing, chat: [{ provider: 'provider-c' }] };
    const result = addressModel('shared-model', 'chat', flipped, slots);
    assert.deepEqual(result, { ok: true, address: { provider: 'provider-c', model: 'shared-model' } });
  });

  it('slots outside the default route still own their models, after the route’s slots', () => {
    assert.deepEqual(slotsInRouteOrder('chat', routing), ['provider-b', 'provider-a', 'provider-c']);
    assert.deepEqual(slotsInRouteOrder('embed', routing), ['provider-c', 'provider-a', 'provider-b']);
  });

  it('embedding models are owned for embeddings only, chat models for chat only', () => {
    assert.deepEqual(address('text-embedding-3-small', 'embed'), {
      provider: 'provider-a',
      model: 'text-embedding-3-small',
    });
    assert.deepEqual(address('text-embedding-3-small'), { model: 'text-embedding-3-small' });
    assert.deepEqual(address('claude-haiku-4-5', 'embed'), { model: 'claude-haiku-4-5' });
  });

  it('a vendor family name goes to the first slot of that kind in route order, when one exists', () => {
    const kinds: Record<ProviderSlot, SlotProfile> = {
      'provider-a': { ...slots['provider-a'], kind: 'openai' },
      'provider-b': { ...slots['provider-b'], kind: 'anthropic' },
      'provider-c': { ...slots['provider-c'], kind: 'gemini' },
    };
    const of = (name: string, operation: AddressedOperation = 'chat') => {
      const result = addressModel(name, operation, routing, kinds);
      assert.ok(result.ok);
      return result.address;
    };
    assert.deepEqual(of('claude-opus-4-1'), { provider: 'provider-b', model: 'claude-opus-4-1' });
    assert.deepEqual(of('gpt-5'), { provider: 'provider-a', model: 'gpt-5' });
    assert.deepEqual(of('o3-mini'), { provider: 'provider-a', model: 'o3-mini' });
    assert.deepEqual(of('gemini-3-pro'), { provider: 'provider-c', model: 'gemini-3-pro' });
    assert.deepEqual(of('omni-model'), { model: 'omni-model' }, 'o without a digit is no family');
    assert.deepEqual(
      of('claude-embed', 'embed'),
      { model: 'claude-embed' },
      'the anthropic slot cannot embed',
    );
    // No slot of the kind: the default route, as before.
    const simulated = { ...kinds, 'provider-b': { ...kinds['provider-b'], kind: 'simulated' as const } };
    const result = addressModel('claude-opus-4-1', 'chat', routing, simulated);
    assert.deepEqual(result.ok && result.address, { model: 'claude-opus-4-1' });
  });

  it('any other name goes to the default route with that model', () => {
    assert.deepEqual(address('gpt-5'), { model: 'gpt-5' });
    assert.deepEqual(address('provider-b'), { model: 'provider-b' }, 'a slot name alone is a plain name');
  });

  it('refuses an empty name, a slot with no model, and an overlong name', () => {
    assert.match(refusal(''), /must name a model/);
    assert.match(refusal('provider-b/'), /provider-b but no model/);
    assert.match(refusal('x'.repeat(MAX_MODEL_NAME_LENGTH + 1)), /at most 256/);
    assert.deepEqual(address('x'.repeat(MAX_MODEL_NAME_LENGTH)), {
      model: 'x'.repeat(MAX_MODEL_NAME_LENGTH),
    });
  });

  it('answers the same from its index for every call on one configuration', () => {
    for (let i = 0; i < 3; i++)
      assert.deepEqual(address('gpt-4o'), { provider: 'provider-a', model: 'gpt-4o' });
    const other = { ...slots, 'provider-a': { ...slots['provider-a'], models: [] } };
    assert.deepEqual(addressModel('gpt-4o', 'chat', routing, other), {
      ok: true,
      address: { model: 'gpt-4o' },
    });
  });
});
