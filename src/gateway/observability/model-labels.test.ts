import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ModelLabels, OTHER_MODEL } from './model-labels.ts';

describe('ModelLabels', () => {
  const priced = (_slot: string, model: string) => model.startsWith('gpt-4');

  it('keeps configured names (and what a simulated slot answers for them), maps the rest to other', () => {
    const labels = new ModelLabels(['chat', 'claude-sonnet-4-5'], () => false);
    assert.equal(labels.of('provider-a', 'chat'), 'chat');
    assert.equal(labels.of('provider-a', 'simulated-chat'), 'simulated-chat');
    assert.equal(labels.of('provider-a', 'claude-sonnet-4-5'), 'claude-sonnet-4-5');
    assert.equal(labels.of('provider-a', 'invented'), OTHER_MODEL);
    assert.equal(labels.of('provider-a', ''), '', 'no model (refused before a slot) stays empty');
  });

  it('keeps priced names up to a fixed number, first come, then other', () => {
    const labels = new ModelLabels([], priced, 3);
    assert.deepEqual(
      ['gpt-4o', 'gpt-4-a', 'gpt-4-b', 'gpt-4-c', 'gpt-4o', 'made-up'].map((model) =>
        labels.of('provider-a', model),
      ),
      ['gpt-4o', 'gpt-4-a', 'gpt-4-b', OTHER_MODEL, 'gpt-4o', OTHER_MODEL],
    );
  });

  it('gives a bounded number of distinct values whatever is sent', () => {
    const labels = new ModelLabels(['chat'], priced, 10);
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(labels.of('provider-a', i % 2 === 0 ? `gpt-4-${i}` : `x-${i}`));
    assert.equal(seen.size, 11);
  });
});
