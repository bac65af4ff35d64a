import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProviderSlot, RoutingSettings } from '../../config/config-types.ts';
import { addressModel } from './model-addressing.ts';
import { addressingConflicts, type ListedModel, listModels } from './model-catalog.ts';
import type { SlotProfile } from './routing.ts';

const slots: Record<ProviderSlot, SlotProfile> = {
  'provider-a': {
    chatModel: 'gpt-4o-mini',
    embedModel: 'text-embedding-3-small',
    models: ['shared-model'],
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

const routing: RoutingSettings = {
  chat: [{ provider: 'provider-b' }, { provider: 'provider-a' }],
  embed: [{ provider: 'provider-c' }, { provider: 'provider-a' }],
  tasks: {
    summarize: [{ provider: 'provider-b', model: 'claude-sonnet-4-5' }, { provider: 'provider-a' }],
    cheap: [{ provider: 'provider-c' }],
    'provider-a/unreachable': [{ provider: 'provider-c' }],
  },
};

function byId(list: ListedModel[]): Map<string, ListedModel> {
  return new Map(list.map((entry) => [entry.id, entry]));
}

describe('listModels', () => {
  const list = listModels(routing, slots);

  it('lists routes, then plain names, then <slot>/<model>, each id once', () => {
    assert.deepEqual(
      list.map((entry) => entry.id),
      [
        'summarize',
        'cheap',
        // Plain names, chat owners in the chat route's order (b, a, c), then embedding-only names.
        'claude-haiku-4-5',
        'shared-model',
        'claude-sonnet-4-5',
        'gpt-4o-mini',
        'gemini-2.5-flash',
        'gemini-embedding-001',
        'text-embedding-3-small',
        // Pinned, slot by slot.
        'provider-a/gpt-4o-mini',
        'provider-a/shared-model',
        'provider-a/text-embedding-3-small',
        'provider-b/claude-haiku-4-5',
        'provider-b/shared-model',
        'provider-b/summarize',
        'provider-b/claude-sonnet-4-5',
        'provider-c/gemini-2.5-flash',
        'provider-c/shared-model',
        'provider-c/gemini-embedding-001',
      ],
    );
    assert.equal(new Set(list.map((entry) => entry.id)).size, list.length);
  });

  it('says which slot serves each, per operation', () => {
    const entries = byId(list);
    assert.deepEqual(entries.get('summarize'), {
      id: 'summarize',
      kind: 'route',
      slot: 'provider-b',
      model: 'claude-sonnet-4-5',
      servedBy: { chat: 'provider-b' },
    });
    assert.deepEqual(entries.get('cheap'), {
      id: 'cheap',
      kind: 'route',
      slot: 'provider-c',
      model: undefined,
      servedBy: { chat: 'provider-c' },
    });
    // Listed by all three slots: chat takes the chat route's first (b), embeddings the embedding route's (c).
    assert.deepEqual(entries.get('shared-model'), {
      id: 'shared-model',
      kind: 'model',
      slot: 'provider-b',
      model: 'shared-model',
      servedBy: { chat: 'provider-b', embed: 'provider-c' },
    });
    assert.deepEqual(entries.get('text-embedding-3-small')?.servedBy, { embed: 'provider-a' });
    assert.equal(entries.get('text-embedding-3-small')?.slot, 'provider-a');
    assert.deepEqual(entries.get('provider-a/shared-model'), {
      id: 'provider-a/shared-model',
      kind: 'pinned',
      slot: 'provider-a',
      model: 'shared-model',
      servedBy: { chat: 'provider-a', embed: 'provider-a' },
    });
  });

  it('leaves out what does not resolve as listed: a task named like a pin, a model named like a task', () => {
    const ids = list.map((entry) => entry.id);
    assert.ok(!ids.includes('provider-a/unreachable'));
    assert.equal(
      byId(list).get('summarize')?.kind,
      'route',
      'provider-b’s model `summarize` is reached pinned',
    );
  });

  it('every entry resolves, for each operation it lists, to the slot and model it names', () => {
    for (const entry of list) {
      for (const [operation, slot] of Object.entries(entry.servedBy) as ['chat' | 'embed', ProviderSlot][]) {
        const result = addressModel(entry.id, operation, routing, slots);
        assert.ok(result.ok, entry.id);
        if (entry.kind === 'route') assert.deepEqual(result.address, { task: entry.id });
        else assert.deepEqual(result.address, { provider: slot, model: entry.model }, entry.id);
      }
    }
  });

  it('with the default configuration (three simulated slots) lists their model once, owned by the first slot', () => {
    const simulated: SlotProfile = {
      chatModel: 'simulated-chat',
      embedModel: 'simulated-embed',
      models: [],
      canEmbed: true,
      canCallTools: true,
    };
    const plain: RoutingSettings = {
      chat: [{ provider: 'provider-a' }, { provider: 'provider-b' }, { provider: 'provider-c' }],
      embed: [{ provider: 'provider-a' }, { provider: 'provider-b' }, { provider: 'provider-c' }],
      tasks: {},
    };
    const entries = listModels(plain, {
      'provider-a': simulated,
      'provider-b': simulated,
      'provider-c': simulated,
    });
    assert.deepEqual(
      entries.filter((entry) => entry.kind === 'model').map((entry) => [entry.id, entry.servedBy]),
      [
        ['simulated-chat', { chat: 'provider-a' }],
        ['simulated-embed', { embed: 'provider-a' }],
      ],
    );
    assert.equal(entries.filter((entry) => entry.kind === 'pinned').length, 6);
  });
});

describe('addressingConflicts', () => {
  it('names a task the doors cannot reach and a task that hides a model, and nothing else', () => {
    const conflicts = addressingConflicts(routing, slots);
    assert.equal(conflicts.length, 2, conflicts.join('\n'));
    assert.match(
      conflicts[0] ?? '',
      /task route "summarize" shadows the model "summarize" of provider-b.*"provider-b\/summarize"/,
    );
    assert.match(conflicts[1] ?? '', /task route "provider-a\/unreachable" cannot be named/);
  });

  it('is empty for a configuration whose names do not collide', () => {
    const clean: RoutingSettings = { ...routing, tasks: { cheap: [{ provider: 'provider-c' }] } };
    assert.deepEqual(addressingConflicts(clean, slots), []);
  });
});
