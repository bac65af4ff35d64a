import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'typebox';
import { DEFAULTS } from './defaults.ts';
import { readDefaults, withDefaults } from './read-defaults.ts';

const Section = Type.Object({
  every: Type.Integer({ default: 5 }),
  nested: Type.Object({ inner: Type.String({ default: 'x' }), other: Type.Boolean({ default: true }) }),
  optional: Type.Optional(Type.String()),
});

describe('readDefaults and withDefaults', () => {
  it('read the defaults out of a schema, nested sections included', () => {
    assert.deepEqual(readDefaults(Section), { every: 5, nested: { inner: 'x', other: true } });
  });

  it('refuse a required setting without a default, naming it', () => {
    const broken = Type.Object({ nested: Type.Object({ forgotten: Type.Integer() }) });
    assert.throws(() => readDefaults(broken), /the setting nested\.forgotten has no default/);
  });

  it('fill what is not given, key by key, and leave out keys the schema does not know', () => {
    const given = { every: 7, nested: { other: false }, unrelated: 1 };
    assert.deepEqual(withDefaults(Section, given), { every: 7, nested: { inner: 'x', other: false } });
    assert.deepEqual(withDefaults(Section, { optional: 'set' }), {
      every: 5,
      nested: { inner: 'x', other: true },
      optional: 'set',
    });
  });

  it('give the documented defaults', () => {
    assert.equal(DEFAULTS.streamKeepAliveMs, 15_000);
    assert.equal(DEFAULTS.gatewayPort, 8787);
    assert.deepEqual(DEFAULTS.retry, {
      maxRetries: 2,
      baseDelayMs: 250,
      maxDelayMs: 4_000,
      budgetMs: 25_000,
    });
    assert.deepEqual(DEFAULTS.provider, {
      defaultMaxTokens: 4096,
      timeouts: { connectMs: 5_000, firstByteMs: 30_000, totalMs: 120_000 },
    });
  });
});
