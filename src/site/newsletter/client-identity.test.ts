import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashClientAddress, toRateLimitKey, trimUserAgent } from './client-identity.ts';

describe('toRateLimitKey', () => {
  const cases: [string, string][] = [
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['2001:db8:1:2:3:4:1.2.3.4', '2001:db8:1:2::/64'],
    ['not-an-ip', 'not-an-ip'],
  ];
  for (const [ip, key] of cases) {
    it(`${ip} counts as ${key}`, () => assert.equal(toRateLimitKey(ip), key));
  }

  it('puts two addresses of one /64 under one key, and of different /64s under two', () => {
    assert.equal(toRateLimitKey('2001:db8:a:b::1'), toRateLimitKey('2001:db8:a:b:ffff:ffff:ffff:ffff'));
    assert.notEqual(toRateLimitKey('2001:db8:a:b::1'), toRateLimitKey('2001:db8:a:c::1'));
  });
});

describe('hashClientAddress', () => {
  it('is keyed: stable under one key, different under another, never the address', () => {
    const a = hashClientAddress('203.0.113.7', 'key-one-0123456789');
    assert.equal(a, hashClientAddress('203.0.113.7', 'key-one-0123456789'));
    assert.notEqual(a, hashClientAddress('203.0.113.7', 'key-two-0123456789'));
    assert.notEqual(a, hashClientAddress('203.0.113.8', 'key-one-0123456789'));
    assert.doesNotMatch(a, /203/);
  });
});

describe('trimUserAgent', () => {
  it('truncates, drops control characters, and treats absence as null', () => {
    assert.equal(trimUserAgent('x'.repeat(10_000))?.length, 256);
    assert.equal(trimUserAgent('Mozilla/5.0\r\nX-Injected: 1'), 'Mozilla/5.0  X-Injected: 1');
    assert.equal(trimUserAgent(undefined), null);
    assert.equal(trimUserAgent(['a', 'b']), null);
    assert.equal(trimUserAgent('  '), null);
  });
});
