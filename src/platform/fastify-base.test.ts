import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactUrlTokens } from './fastify-base.ts';

describe('redactUrlTokens', () => {
  it('leaves a URL without a query string as it is', () => {
    assert.equal(redactUrlTokens('/v1/chat'), '/v1/chat');
    assert.equal(redactUrlTokens('/api/newsletter/confirm/token=abc'), '/api/newsletter/confirm/token=abc');
  });

  it('redacts every token parameter, in any case, and keeps the others', () => {
    assert.equal(
      redactUrlTokens('/api/newsletter/confirm?token=s3cret&x=1'),
      '/api/newsletter/confirm?token=[redacted]&x=1',
    );
    assert.equal(redactUrlTokens('/u?a=1&TOKEN=s3cret#frag'), '/u?a=1&TOKEN=[redacted]#frag');
  });
});
