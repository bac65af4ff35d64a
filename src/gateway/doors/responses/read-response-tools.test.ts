import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../platform/errors.ts';
import { readResponseTools } from './read-response-tools.ts';

function refusedAt(tools: unknown): string | undefined {
  try {
    readResponseTools(tools);
  } catch (error) {
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, 'invalid_request');
    return (error.details as { path: string }[])[0]?.path;
  }
  return undefined;
}

describe('readResponseTools: hosted tool types, named in a header', () => {
  it('leaves hosted tools out and names each type once, in order', () => {
    const read = readResponseTools([
      { type: 'web_search' },
      { type: 'function', name: 'f', parameters: { type: 'object' } },
      { type: 'web_search_preview_2025_03_11' },
      { type: 'web_search' },
    ]);
    assert.deepEqual(read.ignored, ['web_search', 'web_search_preview_2025_03_11']);
    assert.equal(read.definitions.length, 1);
  });

  it('refuses a type that could not be a header value: control characters, spaces, upper case, length', () => {
    // The fuzz found a 500 ("Invalid character in header content") from a type holding a newline.
    assert.equal(refusedAt([{ type: 'web\nsearch' }]), '/tools/0/type');
    assert.equal(refusedAt([{ type: 'web_search' }, { type: 'a b' }]), '/tools/1/type');
    assert.equal(refusedAt([{ type: 'Wéb' }]), '/tools/0/type');
    assert.equal(refusedAt([{ type: `t${'x'.repeat(64)}` }]), '/tools/0/type');
    assert.equal(refusedAt([{ type: `t${'x'.repeat(63)}` }]), undefined);
  });

  it('refuses more than 32 distinct hosted types, so the header stays bounded', () => {
    const tools = Array.from({ length: 33 }, (_, i) => ({ type: `hosted_${i}` }));
    assert.equal(refusedAt(tools.slice(0, 32)), undefined);
    assert.equal(refusedAt(tools), '/tools/32/type');
  });
});
