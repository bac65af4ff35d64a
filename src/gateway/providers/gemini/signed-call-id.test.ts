import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_TOOL_CALL_ID_LENGTH } from '../../domain/tool-limits.ts';
import {
  decodeSignedCallId,
  encodeSignedCallId,
  MAX_CARRIED_SIGNATURE_BYTES,
  SIGNED_ID_PREFIX,
} from './signed-call-id.ts';

const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/;
const signatureOf = (bytes: number) => Buffer.alloc(bytes, 0xa7).toString('base64');

describe('signed call ids', () => {
  it('carry a base64 signature and the id back unchanged, in the alphabet every vendor accepts', () => {
    for (const [id, signature] of [
      ['call_aF3kaZ2rN9uWz7IPp8Sm4Qk_0', signatureOf(4172)],
      ['fc-1', 'CiQB0e2Kb6TkudQsDxtD31FVR08uogP/Bg0v09ujrGIhrx9VQ1I='],
      ['état/1', 'not base64, kept as text ✓'],
    ] as const) {
      const encoded = encodeSignedCallId(id, signature);
      assert.ok(encoded.startsWith(SIGNED_ID_PREFIX));
      assert.match(encoded, ANTHROPIC_ID);
      assert.deepEqual(decodeSignedCallId(encoded), { id, thoughtSignature: signature });
    }
  });

  it('a base64 signature costs its bytes, not its text: 5,564 characters make an id of 5,618', () => {
    const signature = signatureOf(4172);
    assert.equal(signature.length, 5564);
    assert.equal(encodeSignedCallId('call_aF3kaZ2rN9uWz7IPp8Sm4Qk_0', signature).length, 5618);
  });

  it('a signature too large to carry leaves the plain id; the largest carried fits the id bound', () => {
    assert.equal(encodeSignedCallId('c1', signatureOf(MAX_CARRIED_SIGNATURE_BYTES + 1)), 'c1');
    assert.equal(encodeSignedCallId('c1', ''), 'c1');
    const largest = encodeSignedCallId('c'.repeat(200), signatureOf(MAX_CARRIED_SIGNATURE_BYTES));
    assert.ok(largest.startsWith(SIGNED_ID_PREFIX));
    assert.ok(largest.length <= MAX_TOOL_CALL_ID_LENGTH, `${largest.length}`);
  });

  it('any other id decodes to nothing, however much it looks like a signed one', () => {
    const genuine = encodeSignedCallId('call_x_0', signatureOf(300));
    const body = genuine.slice(SIGNED_ID_PREFIX.length);
    const flipped = body.slice(0, 40) + (body[40] === 'A' ? 'B' : 'A') + body.slice(41);
    for (const id of [
      'call_x_0',
      'toolu_01A09q90qw90lq917835lq9',
      SIGNED_ID_PREFIX,
      `${SIGNED_ID_PREFIX}AAAA`,
      `${SIGNED_ID_PREFIX}${'A'.repeat(200)}`,
      `${SIGNED_ID_PREFIX}not+base64/at=all`,
      `${SIGNED_ID_PREFIX}${flipped}`,
      `${SIGNED_ID_PREFIX}${body.slice(0, -3)}`,
      `${SIGNED_ID_PREFIX}${Buffer.from('garbage that a client made up').toString('base64url')}`,
      `${genuine}x`,
    ]) {
      assert.equal(decodeSignedCallId(id), undefined, id);
    }
  });
});
