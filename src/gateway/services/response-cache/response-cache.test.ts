import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ResponseCacheConfig } from '../../../config/config-types.ts';
import { ApiError } from '../../../platform/errors.ts';
import { InProcessResponseCacheStore } from '../../../storage/response-cache-store.ts';
import type { ChatInput, JsonInput } from '../../domain/use-case-inputs.ts';
import { type CachedAnswer, type CachedJsonAnswer, ResponseCache } from './response-cache.ts';

const SETTINGS: ResponseCacheConfig = {
  enabled: false,
  ttlSeconds: 3600,
  maxBytes: 1 << 20,
  maxEntryBytes: 1024,
  coalesce: true,
  apps: { on: { enabled: true, ttlSeconds: 60 }, off: { enabled: false } },
  routes: { chat: {}, tasks: { summarize: { enabled: true, ttlSeconds: 600 } } },
};
const TASKS = { summarize: [] };
const CANDIDATES = [{ provider: 'provider-a' as const, model: 'm' }];
const INPUT: ChatInput = { messages: [{ role: 'user', content: 'hello' }], temperature: 0.5 };
const ANSWER: CachedAnswer = {
  provider: 'provider-a',
  model: 'm',
  content: 'hi',
  finishReason: 'stop',
  usage: {
    tokensIn: 3,
    tokensOut: 1,
    estimatedCost: 0.001,
    estimated: false,
    tokensInCacheRead: 0,
    tokensInCacheWrite: 0,
    tokensInCacheWrite1h: 0,
  },
};

function cacheWith(settings: Partial<ResponseCacheConfig> = {}) {
  const store = new InProcessResponseCacheStore(1 << 20, () => 0);
  return { cache: new ResponseCache({ ...SETTINGS, ...settings }, TASKS, store), store };
}

describe('ResponseCache.policyFor', () => {
  const { cache } = cacheWith();

  it('takes the header first, then the app, then the route, then the default', () => {
    assert.equal(cache.policyFor('plain', undefined, undefined), undefined, 'off by default');
    assert.deepEqual(cache.policyFor('plain', undefined, 'use'), {
      read: true,
      write: true,
      ttlMs: 3_600_000,
    });
    assert.deepEqual(cache.policyFor('on', undefined, undefined), { read: true, write: true, ttlMs: 60_000 });
    assert.deepEqual(cache.policyFor('plain', 'summarize', undefined), {
      read: true,
      write: true,
      ttlMs: 600_000,
    });
    assert.equal(
      cache.policyFor('off', 'summarize', undefined),
      undefined,
      "the app's setting wins over the route's",
    );
    assert.deepEqual(cache.policyFor('on', 'summarize', undefined)?.ttlMs, 60_000);
    assert.deepEqual(cache.policyFor('on', undefined, ' BYPASS '), {
      read: false,
      write: false,
      ttlMs: 60_000,
    });
    assert.deepEqual(cache.policyFor('off', undefined, 'refresh'), {
      read: false,
      write: true,
      ttlMs: 3_600_000,
    });
    assert.equal(
      cache.policyFor('plain', 'unknown-task', undefined),
      undefined,
      'an unknown task is the chat route',
    );
  });

  it('refuses any other header value, and a repeated header, with a 400', () => {
    for (const value of ['always', '', ['use', 'use']]) {
      assert.throws(
        () => cache.policyFor('on', undefined, value),
        (error: unknown) => error instanceof ApiError && error.statusCode === 400,
      );
    }
  });
});

describe('ResponseCache.keyOf', () => {
  const { cache } = cacheWith();
  const key = (app: string, input: ChatInput) => cache.keyOf(app, input, CANDIDATES);

  it('is a SHA-256 that differs between apps and between what changes the answer', () => {
    assert.match(key('a', INPUT), /^[0-9a-f]{64}$/);
    assert.notEqual(key('a', INPUT), key('b', INPUT));
    assert.notEqual(key('a', INPUT), key('a', { ...INPUT, temperature: 0.6 }));
    assert.notEqual(key('a', INPUT), key('a', { ...INPUT, stop: ['x'] }));
    assert.notEqual(key('a', INPUT), cache.keyOf('a', INPUT, [{ provider: 'provider-b', model: 'm' }]));
  });

  it('leaves stream, metadata and the order of fields out', () => {
    const reordered = { temperature: 0.5, messages: [{ content: 'hello', role: 'user' as const }] };
    assert.equal(key('a', INPUT), key('a', reordered));
    const native = { ...INPUT, stream: true, metadata: { run: 1 } } as ChatInput;
    assert.equal(key('a', INPUT), key('a', native));
  });
});

describe('ResponseCache.jsonKeyOf', () => {
  const { cache } = cacheWith();
  const SCHEMA = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
  const JSON_INPUT: JsonInput = { ...INPUT, schema: SCHEMA };
  const key = (input: JsonInput) => cache.jsonKeyOf('a', input, CANDIDATES);

  it('holds the schema and its name, never meets a chat key, and leaves stream and metadata out', () => {
    assert.match(key(JSON_INPUT), /^[0-9a-f]{64}$/);
    assert.notEqual(key(JSON_INPUT), cache.keyOf('a', INPUT, CANDIDATES));
    assert.notEqual(key(JSON_INPUT), key({ ...JSON_INPUT, schema: { ...SCHEMA, required: [] } }));
    assert.notEqual(key(JSON_INPUT), key({ ...JSON_INPUT, schemaName: 'thing' }));
    assert.notEqual(key(JSON_INPUT), cache.jsonKeyOf('b', JSON_INPUT, CANDIDATES));
    const reordered = { schema: { required: ['a'], properties: { a: { type: 'string' } }, type: 'object' } };
    assert.equal(key(JSON_INPUT), key({ ...JSON_INPUT, ...reordered }));
    assert.equal(key(JSON_INPUT), key({ ...JSON_INPUT, stream: true, metadata: { run: 1 } } as JsonInput));
  });
});

describe('ResponseCache entries', () => {
  it('keeps a structured answer apart from a chat answer: each reader sees the other kind as a miss', async () => {
    const { cache } = cacheWith();
    const json: CachedJsonAnswer = {
      kind: 'json',
      provider: 'provider-a',
      model: 'm',
      data: null,
      raw: 'null',
      usage: ANSWER.usage,
    };
    cache.rememberJson('j', json, 1000);
    assert.deepEqual(await cache.readJson('j'), json, 'null data is data');
    assert.equal(await cache.read('j'), undefined);
    cache.remember('c', ANSWER, 1000);
    assert.equal(await cache.readJson('c'), undefined);
    cache.rememberJson('big', { ...json, raw: 'x'.repeat(2000) }, 1000);
    assert.equal(await cache.readJson('big'), undefined);
  });

  it('keeps a complete answer within maxEntryBytes, and reads it back', async () => {
    const { cache } = cacheWith();
    cache.remember('k', ANSWER, 1000);
    assert.deepEqual(await cache.read('k'), ANSWER);
    cache.remember('big', { ...ANSWER, content: 'x'.repeat(2000) }, 1000);
    assert.equal(await cache.read('big'), undefined);
    cache.remember('filtered', { ...ANSWER, finishReason: 'content_filter' }, 1000);
    assert.equal(await cache.read('filtered'), undefined);
  });

  it('reads a damaged entry as a miss', async () => {
    const { cache, store } = cacheWith();
    await store.set('broken', '{"content": 1', 1000);
    await store.set('other', '{"content": "x"}', 1000);
    assert.equal(await cache.read('broken'), undefined);
    assert.equal(await cache.read('other'), undefined);
  });
});

describe('ResponseCache coalescing', () => {
  it("a follower gets the leader's answer; nothing is in flight once it settles", async () => {
    const { cache } = cacheWith();
    const signal = new AbortController().signal;
    assert.equal(cache.follow('k', signal), undefined);
    const settle = cache.lead('k');
    const second = cache.lead('k');
    const follower = cache.follow('k', signal);
    assert.ok(follower !== undefined);
    second(undefined); // not the leader: changes nothing
    settle(ANSWER);
    assert.deepEqual(await follower, ANSWER);
    assert.equal(cache.follow('k', signal), undefined);
  });

  it('a follower whose client leaves stops waiting; a failed leader gives nothing', async () => {
    const { cache } = cacheWith();
    const settle = cache.lead('k');
    const leaving = new AbortController();
    const follower = cache.follow('k', leaving.signal);
    leaving.abort();
    assert.equal(await follower, undefined);
    const other = cache.follow('k', new AbortController().signal);
    settle(undefined);
    assert.equal(await other, undefined);
  });

  it('without coalescing nobody leads', () => {
    const { cache } = cacheWith({ coalesce: false });
    cache.lead('k');
    assert.equal(cache.follow('k', new AbortController().signal), undefined);
  });
});
