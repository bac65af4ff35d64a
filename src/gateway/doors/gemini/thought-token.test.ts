import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ThinkingPart } from '../../domain/content-parts.ts';
import { decodeThoughtToken, encodeThoughtToken } from './thought-token.ts';

describe('the thought token', () => {
  it('carries signed and redacted thinking blocks both ways, in order', () => {
    const parts: ThinkingPart[] = [
      { type: 'thinking', vendor: 'anthropic', text: 'First.', signature: 'sig-1' },
      { type: 'thinking', vendor: 'anthropic', text: '', redacted: 'opaque' },
    ];
    const token = encodeThoughtToken(parts);
    assert.match(token, /^gwt1\.[A-Za-z0-9_-]+$/);
    assert.deepEqual(decodeThoughtToken(token), parts);
  });

  it("reads nothing from Google's own signatures, stand-ins, broken tokens or unsigned thinking", () => {
    assert.equal(decodeThoughtToken('CiQBcsjafF0RGQ=='), undefined);
    assert.equal(decodeThoughtToken('skip_thought_signature_validator'), undefined);
    assert.equal(decodeThoughtToken('gwt1.not-json'), undefined);
    assert.equal(decodeThoughtToken(`gwt1.${Buffer.from('{"v":1}').toString('base64url')}`), undefined);
    assert.equal(
      decodeThoughtToken(encodeThoughtToken([{ type: 'thinking', vendor: 'openai', text: 'x' }])),
      undefined,
    );
    assert.equal(decodeThoughtToken(42), undefined);
  });
});
