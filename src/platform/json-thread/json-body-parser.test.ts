import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { CountingJsonThread, DYING_JSON_WORKER_URL } from '../../../test/helpers/json-thread-doubles.ts';
import { createBaseApp } from '../fastify-base.ts';
import { createLogger } from '../logger.ts';
import { parseJsonBodiesOffThread } from './json-body-parser.ts';
import { JsonThread, OFF_THREAD_BYTES } from './json-thread.ts';

function appWith(thread: JsonThread, keepBytes?: (bytes: Buffer) => void): FastifyInstance {
  const app = createBaseApp({ logger: createLogger({ level: 'silent' }), maxBodyBytes: 4 * 1024 * 1024 });
  parseJsonBodiesOffThread(app, {
    thread,
    ...(keepBytes === undefined ? {} : { keepBytes: (_request, bytes) => keepBytes(bytes) }),
  });
  app.post('/echo', async (request) => {
    const body = request.body as { text: string };
    return { length: body.text.length, head: body.text.slice(0, 8) };
  });
  return app;
}

const large = (text = 'é'.repeat(OFF_THREAD_BYTES)) => JSON.stringify({ text });

describe('JSON bodies read off the event loop', () => {
  const thread = new CountingJsonThread();
  const app = appWith(thread);
  after(async () => {
    await app.close();
    await thread.close();
  });
  const post = (payload: string, contentType = 'application/json') =>
    app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': contentType }, payload });

  it('reads a large body on the thread and a small one here, to the same value', async () => {
    const before = thread.parsed;
    const big = await post(large(), 'application/json; charset=utf-8');
    assert.equal(big.statusCode, 200, big.body);
    assert.deepEqual(big.json(), { length: OFF_THREAD_BYTES, head: 'éééééééé' });
    assert.equal(thread.parsed, before + 1);
    const small = await post(JSON.stringify({ text: 'hello there' }));
    assert.deepEqual(small.json(), { length: 11, head: 'hello th' });
    assert.equal(thread.parsed, before + 1, 'a small body stays on the event loop');
  });

  it('answers a bad large body as it answers a bad small one', async () => {
    const cases = [
      [`${large().slice(0, -1)}`, '{"text":'],
      [
        `{"__proto__":{"x":1},"pad":${JSON.stringify('p'.repeat(OFF_THREAD_BYTES))}}`,
        '{"__proto__":{"x":1}}',
      ],
      [
        `{"constructor":{"prototype":{"x":1}},"pad":${JSON.stringify('p'.repeat(OFF_THREAD_BYTES))}}`,
        '{"constructor":{"prototype":{"x":1}}}',
      ],
    ] as const;
    for (const [bigText, smallText] of cases) {
      const big = await post(bigText);
      const small = await post(smallText);
      assert.equal(big.statusCode, 400, big.body);
      assert.equal(small.statusCode, 400, small.body);
      assert.equal(big.json().error.code, 'invalid_json');
      assert.deepEqual(
        { ...big.json().error, request_id: undefined },
        { ...small.json().error, request_id: undefined },
      );
    }
  });

  it('keeps the body limit: a body past it is 413, never read', async () => {
    const before = thread.parsed;
    const res = await post(large('x'.repeat(5 * 1024 * 1024)));
    assert.equal(res.statusCode, 413);
    assert.equal(thread.parsed, before);
  });
});

describe('bytes kept beside a body read on the thread', () => {
  it('are the bytes as they arrived, whole after the thread read its copy', async () => {
    const thread = new JsonThread();
    const kept: Buffer[] = [];
    const app = appWith(thread, (bytes) => kept.push(bytes));
    try {
      const text = large();
      const res = await app.inject({
        method: 'POST',
        url: '/echo',
        headers: { 'content-type': 'application/json' },
        payload: text,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(kept.length, 1);
      assert.equal(kept[0]?.toString('utf8'), text);
    } finally {
      await app.close();
      await thread.close();
    }
  });
});

describe('a JSON thread that dies with a body on it', () => {
  it('answers 503 with Retry-After (the bytes went with it), and a small body still works', async () => {
    const thread = new JsonThread({ workerUrl: DYING_JSON_WORKER_URL });
    const app = appWith(thread);
    try {
      const res = await app.inject({
        method: 'POST',
        url: '/echo',
        headers: { 'content-type': 'application/json' },
        payload: large(),
      });
      assert.equal(res.statusCode, 503, res.body);
      assert.equal(res.json().error.code, 'service_unavailable');
      assert.ok(Number(res.headers['retry-after']) > 0);
      const small = await app.inject({
        method: 'POST',
        url: '/echo',
        headers: { 'content-type': 'application/json' },
        payload: '{"text":"ok"}',
      });
      assert.equal(small.statusCode, 200);
    } finally {
      await app.close();
      await thread.close();
    }
  });
});
