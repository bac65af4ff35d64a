import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProviderSlot, RoutingSettings } from '../../config/config-types.ts';
import { planRoute, type RouteRequest, type SlotProfile } from './routing.ts';

const slots: Record<ProviderSlot, SlotProfile> = {
  'provider-a': {
    chatModel: 'gpt-4o-mini',
    embedModel: 'text-embedding-3-small',
    models: ['gpt-4o'],
    canEmbed: true,
    canCallTools: true,
  },
  'provider-b': {
    chatModel: 'claude-haiku-4-5',
    embedModel: undefined,
    models: [],
    canEmbed: false,
    canCallTools: false,
  },
  'provider-c': {
    chatModel: 'gemini-2.5-flash',
    embedModel: 'gemini-embedding-001',
    models: [],
    canEmbed: true,
    canCallTools: true,
  },
};

const routing: RoutingSettings = {
  chat: [{ provider: 'provider-a' }, { provider: 'provider-b' }, { provider: 'provider-c' }],
  embed: [{ provider: 'provider-c' }, { provider: 'provider-a' }],
  tasks: {
    code: [
      { provider: 'provider-b', model: 'claude-sonnet-4-5' },
      { provider: 'provider-a', model: 'gpt-4o' },
    ],
    cheap: [{ provider: 'provider-c' }, { provider: 'provider-c' }],
  },
};

const table: { name: string; request: RouteRequest; expected: string[] | 'unsupported' }[] = [
  {
    name: 'default chat route',
    request: { operation: 'chat' },
    expected: ['provider-a/gpt-4o-mini', 'provider-b/claude-haiku-4-5', 'provider-c/gemini-2.5-flash'],
  },
  {
    name: 'json uses the chat route',
    request: { operation: 'json' },
    expected: ['provider-a/gpt-4o-mini', 'provider-b/claude-haiku-4-5', 'provider-c/gemini-2.5-flash'],
  },
  {
    name: 'task route with models',
    request: { operation: 'chat', task: 'code' },
    expected: ['provider-b/claude-sonnet-4-5', 'provider-a/gpt-4o'],
  },
  {
    name: 'unknown task: default route',
    request: { operation: 'chat', task: 'poetry' },
    expected: ['provider-a/gpt-4o-mini', 'provider-b/claude-haiku-4-5', 'provider-c/gemini-2.5-flash'],
  },
  {
    name: 'duplicate candidates collapse',
    request: { operation: 'chat', task: 'cheap' },
    expected: ['provider-c/gemini-2.5-flash'],
  },
  {
    name: 'tools: slots that cannot call tools are skipped (a capability row, all real kinds can)',
    request: { operation: 'chat', tools: true },
    expected: ['provider-a/gpt-4o-mini', 'provider-c/gemini-2.5-flash'],
  },
  {
    name: 'tools on an explicit slot that cannot call them',
    request: { operation: 'chat', provider: 'provider-b', tools: true },
    expected: 'unsupported',
  },
  {
    name: 'explicit provider, default model',
    request: { operation: 'chat', provider: 'provider-b' },
    expected: ['provider-b/claude-haiku-4-5'],
  },
  {
    name: 'explicit provider and model',
    request: { operation: 'chat', provider: 'provider-c', model: 'gemini-2.5-pro' },
    expected: ['provider-c/gemini-2.5-pro'],
  },
  {
    name: 'explicit provider beats task',
    request: { operation: 'chat', provider: 'provider-a', task: 'code' },
    expected: ['provider-a/gpt-4o-mini'],
  },
  {
    name: 'model declared by a slot',
    request: { operation: 'chat', model: 'gpt-4o' },
    expected: ['provider-a/gpt-4o'],
  },
  {
    name: 'model that is a slot default',
    request: { operation: 'chat', model: 'gemini-2.5-flash' },
    expected: ['provider-c/gemini-2.5-flash'],
  },
  {
    name: 'unknown model: first slot of the route only',
    request: { operation: 'chat', model: 'mystery' },
    expected: ['provider-a/mystery'],
  },
  {
    name: 'embed default route',
    request: { operation: 'embed' },
    expected: ['provider-c/gemini-embedding-001', 'provider-a/text-embedding-3-small'],
  },
  {
    name: 'embed ignores task',
    request: { operation: 'embed', task: 'code' },
    expected: ['provider-c/gemini-embedding-001', 'provider-a/text-embedding-3-small'],
  },
  {
    name: 'embed on a slot that cannot',
    request: { operation: 'embed', provider: 'provider-b' },
    expected: 'unsupported',
  },
];

describe('planRoute', () => {
  for (const { name, request, expected } of table) {
    it(name, () => {
      const plan = planRoute(request, routing, slots);
      if (expected === 'unsupported') {
        assert.equal(plan.ok, false);
        return;
      }
      assert.ok(plan.ok);
      assert.deepEqual(
        plan.candidates.map((c) => `${c.provider}/${c.model}`),
        expected,
      );
    });
  }

  it('an embed route whose every slot cannot embed is unsupported', () => {
    const plan = planRoute(
      { operation: 'embed' },
      { ...routing, embed: [{ provider: 'provider-b' }] },
      slots,
    );
    assert.deepEqual(plan, { ok: false, reason: 'unsupported_capability', provider: undefined });
  });
});
