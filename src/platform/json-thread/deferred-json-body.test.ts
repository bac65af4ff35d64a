import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { CountingJsonThread, DYING_JSON_WORKER_URL } from '../../../test/helpers/json-thread-doubles.ts';
import { createBaseApp } from '../fastify-base.ts';
import { createLogger } from '../logger.ts';
import { isBodyDeferred, parsedBody, settleDeferredBody } from './deferred-json-body.ts';
import { parseJsonBodiesOffThread } from './json-body-parser.ts';
import { JsonThread, OFF_THREAD_BYTES } from './json-thread.ts';

/** `/lane` passes its body on (deferred); `/read` reads it; `?settle` settles it on the thread first. */
function appWith(thread: JsonThread, kept: Buffer[]): FastifyInstance {
  const app = createBaseApp({ logger: createLogger({ level: 'silent' }), maxBodyBytes: 4 * 1024 * 1024 });
  parseJsonBodiesOffThread(app, {
    thread,
    keepBytes: (_request, bytes) => kept.push(bytes),
    defer: (request) => request.routeOptions.url === '/lane',
  });
  app.post<{ Querystring: { read?: string; settle?: string } }>('/lane', async (request) => {
    const deferred = isBodyDeferred(request);
    if (request.query.settle !== undefined) await settleDeferredBody(request);
    const settled = !isBodyDeferred(request);
    const text =
      request.query.read === undefined ? undefined : (parsedBody(request) as { text: string }).text;
    return { deferred, settled, length: text?.length };
  });
  app.post('/read', async (request) => ({ length: (request.body as { text: string }).text.length }));
  return app;
}

const large = (text = 'é'.repeat(OFF_THREAD_BYTES)) => JSON.stringify({ text });

describe('a large body deferred on a lane route', () => {
  const thread = new CountingJsonThread();
  const kept: Buffer[] = [];
  const app = appWith(thread, kept);
  after(async () => {
    await app.close();
    await thread.close();
  });
  const post = (url: string, payload: string) =>
    app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload });

  it('is checked on the thread and never parsed while nothing reads it; its bytes are kept whole', async () => {
    const before = thread.parsed;
    kept.length = 0;
    const text = large();
    const res = await post('/lane', text);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { deferred: true, settled: false });
    assert.equal(thread.parsed, before, 'no value came back from the thread');
    assert.equal(kept[0]?.toString('utf8'), text);
  });

  it('is the value as before when read here, or when settled on the thread first', async () => {
    const read = await post('/lane?read', large());
    assert.deepEqual(read.json(), { deferred: true, settled: false, length: OFF_THREAD_BYTES });
    const before = thread.parsed;
    const settled = await post('/lane?settle&read', large());
    assert.deepEqual(settled.json(), { deferred: true, settled: true, length: OFF_THREAD_BYTES });
    assert.equal(thread.parsed, before + 1);
  });

  it('answers a bad body as every route does, and leaves other routes and small bodies parsed', async () => {
    const bad = await post(
      '/lane',
      `{"__proto__":{"x":1},"pad":${JSON.stringify('p'.repeat(OFF_THREAD_BYTES))}}`,
    );
    assert.equal(bad.statusCode, 400, bad.body);
    assert.equal(bad.json().error.code, 'invalid_json');
    const broken = await post('/lane', large().slice(0, -1));
    assert.equal(broken.json().error.code, 'invalid_json');
    assert.deepEqual((await post('/lane', '{"text":"x"}')).json(), { deferred: false, settled: true });
    const before = thread.parsed;
    assert.deepEqual((await post('/read', large())).json(), { length: OFF_THREAD_BYTES });
    assert.equal(thread.parsed, before + 1);
  });
});

describe('a deferred body whose thread dies', () => {
  it('answers 503 with Retry-After, as a parsed one does', async () => {
    const thread = new JsonThread({ workerUrl: DYING_JSON_WORKER_URL });
    const app = appWith(thread, []);
    try {
      const res = await app.inject({
        method: 'POST',
        url: '/lane',
        headers: { 'content-type': 'application/json' },
        payload: large(),
      });
      assert.equal(res.statusCode, 503, res.body);
      assert.ok(Number(res.headers['retry-after']) > 0);
    } finally {
      await app.close();
      await thread.close();
    }
  });
});
