import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allowedCandidates, checkAllowList, listMatches, matchesPattern } from './model-allow-list.ts';

describe('model allow lists', () => {
  it('matches * over any run of characters, slashes included, and nothing else loosely', () => {
    const table: [string, string, boolean][] = [
      ['gpt-4o', 'gpt-4o', true],
      ['gpt-4o', 'gpt-4o-mini', false],
      ['gpt-*', 'gpt-4o-mini', true],
      ['gpt-*', 'xgpt-4o', false],
      ['provider-a/*', 'provider-a/claude-haiku-4-5', true],
      ['provider-a/*', 'provider-b/claude-haiku-4-5', false],
      ['*/claude-*', 'provider-c/claude-sonnet-4-5', true],
      ['*', 'anything/at/all', true],
      ['a*b*c', 'aXXbYYc', true],
      ['a*b*c', 'aXXbYY', false],
      ['**', '', true],
      ['', '', true],
      ['x', '', false],
    ];
    for (const [pattern, value, expected] of table)
      assert.equal(matchesPattern(pattern, value), expected, `${pattern} ~ ${value}`);
  });

  it('stays fast on patterns built to backtrack', () => {
    const pattern = `${'a*'.repeat(100)}b`;
    const value = 'a'.repeat(256);
    const started = performance.now();
    assert.equal(matchesPattern(pattern, value), false);
    assert.ok(performance.now() - started < 200);
  });

  it('refuses lists that cannot be used, saying which item', () => {
    assert.equal(checkAllowList(['gpt-*', 'provider-a/claude-haiku-4-5', 'cheap']), undefined);
    assert.match(checkAllowList('gpt-*') ?? '', /array/);
    assert.match(checkAllowList(['ok', '']) ?? '', /item 1/);
    assert.match(checkAllowList(['has space']) ?? '', /item 0/);
    assert.match(checkAllowList(['x'.repeat(257)]) ?? '', /256/);
    assert.match(checkAllowList(Array.from({ length: 201 }, () => 'a')) ?? '', /200/);
    assert.equal(listMatches([], 'anything'), false);
  });

  it('keeps every candidate when the name or task is allowed, else those whose slot/model is', () => {
    const candidates = [
      { provider: 'provider-a', model: 'gpt-4o-mini' },
      { provider: 'provider-b', model: 'claude-haiku-4-5' },
    ];
    assert.equal(allowedCandidates([['cheap'], undefined], { task: 'cheap' }, candidates).length, 2);
    assert.deepEqual(
      allowedCandidates([['provider-b/*']], { task: 'default' }, candidates).map((c) => c.provider),
      ['provider-b'],
    );
    // An app's list wider than its team's is bounded by the team's.
    assert.deepEqual(
      allowedCandidates([['*'], ['*/gpt-*']], { requested: 'cheap', task: 'cheap' }, candidates).map(
        (c) => c.model,
      ),
      ['gpt-4o-mini'],
    );
    assert.equal(allowedCandidates([['gpt-5']], { requested: 'gpt-4o-mini' }, candidates).length, 0);
    assert.equal(allowedCandidates([undefined, undefined], {}, candidates).length, 2);
  });
});
