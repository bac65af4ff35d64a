import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileGuards } from './compile-guards.ts';
import { HoldBack } from './hold-back.ts';

const [maskSecrets, blockSecrets, maskPii] = compileGuards([
  {
    name: 'mask-secrets',
    type: 'secrets',
    phases: ['output'],
    action: 'mask',
    detectors: ['AWS_ACCESS_KEY', 'GITHUB_TOKEN', 'PRIVATE_KEY', 'JWT'],
  },
  {
    name: 'block-secrets',
    type: 'secrets',
    phases: ['output'],
    action: 'block',
    detectors: ['AWS_ACCESS_KEY'],
  },
  { name: 'mask-pii', type: 'pii', phases: ['output'], action: 'mask', detectors: ['EMAIL', 'CARD'] },
]);

/** Streams `chunks` through a hold-back; answers what went out, chunk by chunk, and the end. */
function stream(holdBack: HoldBack, chunks: readonly string[]): { pieces: string[]; all: string } {
  const pieces = chunks.map((chunk) => holdBack.push(chunk).text);
  pieces.push(holdBack.flush().text);
  return { pieces, all: pieces.join('') };
}

function split(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let at = 0; at < text.length; at += size) chunks.push(text.slice(at, at + size));
  return chunks;
}

describe('the hold-back window', () => {
  const text = 'Your key is AKIAIOSFODNN7EXAMPLE and mail alice@example.com, card 4111 1111 1111 1111. Done.';
  for (const size of [1, 3, 7, 16, 1000]) {
    it(`masks matches split across chunks of ${size} characters`, () => {
      const { all } = stream(new HoldBack([maskSecrets as never, maskPii as never], 256), split(text, size));
      assert.equal(
        all,
        'Your key is [REDACTED:AWS_ACCESS_KEY] and mail [REDACTED:EMAIL], card [REDACTED:CARD]. Done.',
      );
    });
  }

  it('lets text go once it is older than the window, so the first token is late by at most the window', () => {
    const holdBack = new HoldBack([maskSecrets as never], 32);
    const words = 'plain words '.repeat(20);
    let released = 0;
    let arrived = 0;
    for (const chunk of split(words, 5)) {
      arrived += chunk.length;
      released += holdBack.push(chunk).text.length;
      assert.ok(arrived - released <= 32, `${arrived - released} characters held`);
    }
    assert.equal(released + holdBack.flush().text.length, words.length);
  });

  it('blocks when a blocking guard finds a match, and lets nothing more out', () => {
    const holdBack = new HoldBack([blockSecrets as never], 64);
    const pieces = split(`${'ok '.repeat(40)}AKIAIOSFODNN7EXAMPLE more`, 4).map((chunk) =>
      holdBack.push(chunk),
    );
    assert.ok(pieces.some((piece) => piece.blockedBy === 'block-secrets'));
    assert.equal(
      pieces
        .map((piece) => piece.text)
        .join('')
        .includes('AKIA'),
      false,
    );
    assert.equal(holdBack.flush().blockedBy, 'block-secrets');
    assert.deepEqual(holdBack.events, [{ guard: 'block-secrets', phase: 'output', action: 'block' }]);
  });

  it('cuts a private key from its BEGIN line on, its END far past the window, and goes on after it', () => {
    const body = 'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n'.repeat(40);
    const key = `-----BEGIN RSA PRIVATE KEY-----\n${body}-----END RSA PRIVATE KEY-----`;
    const { all } = stream(new HoldBack([maskSecrets as never], 64), split(`Here:\n${key}\nThat was it.`, 9));
    assert.equal(all, 'Here:\n[REDACTED:PRIVATE_KEY]\nThat was it.');
  });

  it('cuts a private key whose END never comes', () => {
    const { all } = stream(
      new HoldBack([maskSecrets as never], 64),
      split(`x -----BEGIN PRIVATE KEY-----\n${'QUJD'.repeat(300)}`, 11),
    );
    assert.equal(all, 'x [REDACTED:PRIVATE_KEY]');
  });

  it('holds a long match until it ends (a JWT past the window)', () => {
    const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJ${'a'.repeat(600)}.${'b'.repeat(50)}`;
    const { all } = stream(new HoldBack([maskSecrets as never], 64), split(`token ${jwt} end`, 13));
    assert.equal(all, 'token [REDACTED:JWT] end');
  });

  it('masks a match inside the window that a private key right after it releases (found by the matrix test)', () => {
    const jwt =
      'eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlIn0.MEUCIQDkQ2Z3x4y5z6a7b8c9d0e1f2g3';
    const pem =
      '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n-----END PRIVATE KEY-----';
    for (const size of [1, 7, 40]) {
      const { all } = stream(
        new HoldBack([maskSecrets as never, maskPii as never], 256),
        split(`jwt = ${jwt}\nmail bob@example.com\nkey = ${pem}\nend`, size),
      );
      assert.equal(
        all,
        'jwt = [REDACTED:JWT]\nmail [REDACTED:EMAIL]\nkey = [REDACTED:PRIVATE_KEY]\nend',
        `chunks of ${size}`,
      );
    }
  });

  it('blocks on a blocking match before a private key that is masked', () => {
    const holdBack = new HoldBack([blockSecrets as never, maskSecrets as never], 256);
    const { all } = stream(
      holdBack,
      split('id AKIAIOSFODNN7EXAMPLE\n-----BEGIN PRIVATE KEY-----\nQUJD\n', 9),
    );
    assert.equal(all.includes('AKIAIOSFODNN7EXAMPLE'), false);
    assert.equal(holdBack.blockedBy, 'block-secrets');
  });

  it('never cuts a run of token characters at the release point (a look-alike would match its tail)', () => {
    const lookAlike = 'task-4f3Bz9QpL2mX8vR1tY6wK0jH5gD7cA3eN9uS2iO4pZ8xV1bM';
    const openAI = compileGuards([
      { name: 'openai', type: 'secrets', phases: ['output'], action: 'mask', detectors: ['OPENAI_KEY'] },
    ]);
    for (const size of [1, 7, 13]) {
      const text = `${'filler text '.repeat(30)}plain = ${lookAlike}\nmore ${'words '.repeat(60)}`;
      const { all } = stream(new HoldBack(openAI, 256), split(text, size));
      assert.equal(all, text, `chunks of ${size}`);
    }
  });
});
