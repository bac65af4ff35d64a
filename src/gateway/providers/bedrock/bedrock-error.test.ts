import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bedrockHttpError, bedrockStreamError } from './bedrock-error.ts';

describe('Bedrock errors', () => {
  it('a ValidationException saying the input is too long is an overflow, with the figures Claude gives', () => {
    const plain = bedrockHttpError(
      'provider-a',
      400,
      { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/' },
      '{"message":"Input is too long for requested model."}',
    );
    assert.equal(plain.retryable, false);
    assert.equal(plain.overflow?.kind, 'context_overflow');
    assert.equal(plain.overflow?.promptTokens, undefined);
    const claude = bedrockHttpError(
      'provider-a',
      400,
      { 'x-amzn-errortype': 'ValidationException' },
      '{"message":"The model returned the following errors: prompt is too long: 208310 tokens > 200000 maximum"}',
    );
    assert.deepEqual([claude.overflow?.promptTokens, claude.overflow?.maxTokens], [208310, 200000]);
  });

  it('the same inside a stream (an exception frame), and any other ValidationException is no overflow', () => {
    const framed = bedrockStreamError(
      'provider-a',
      'validationException',
      '{"message":"Input is too long for requested model."}',
    );
    assert.equal(framed.status, 400);
    assert.equal(framed.overflow?.kind, 'context_overflow');
    const other = bedrockHttpError(
      'provider-a',
      400,
      { 'x-amzn-errortype': 'ValidationException' },
      '{"message":"The maximum tokens you requested exceeds the model limit of 32768."}',
    );
    assert.equal(other.overflow, undefined);
    assert.match(other.upstreamMessage ?? '', /maximum tokens you requested/);
  });

  it('throttling is a retryable 429', () => {
    const throttled = bedrockHttpError(
      'provider-a',
      429,
      { 'x-amzn-errortype': 'ThrottlingException' },
      '{"message":"Too many requests, please wait before trying again."}',
    );
    assert.equal(throttled.status, 429);
    assert.equal(throttled.retryable, true);
    assert.equal(throttled.upstreamMessage, undefined);
  });
});
