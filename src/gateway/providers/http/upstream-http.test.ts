import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { ProviderError } from '../provider-error.ts';
import { parseRetryAfter } from './retry-after.ts';
import { UpstreamHttp, type UpstreamRequest } from './upstream-http.ts';

describe('UpstreamHttp', () => {
  let server: Server;
  let base: string;
  const endlessClosed = Promise.withResolvers<void>();
  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/v1/json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      } else if (req.url === '/v1/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"n":1}\n\n');
        setTimeout(() => res.end('event: last\ndata: {"n":2}\n\n'), 20);
      } else if (req.url === '/v1/slow') {
        setTimeout(() => res.writeHead(200).end('{}'), 2_000);
      } else if (req.url === '/v1/not-json') {
        res.writeHead(200).end('<html>');
      } else if (req.url === '/v1/chunked') {
        // A multi-byte character split across two writes must come out whole.
        const bytes = Buffer.from('{"text":"café ✓"}');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(bytes.subarray(0, 12));
        setTimeout(() => res.end(bytes.subarray(12)), 10);
      } else if (req.url === '/v1/stream-split') {
        // A multi-byte character split across two writes, inside an event.
        const bytes = Buffer.from('data: {"text":"café ✓"}\n\n');
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(bytes.subarray(0, 19));
        setTimeout(() => res.end(bytes.subarray(19)), 10);
      } else if (req.url === '/v1/stall') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: 1\n\n');
      } else if (req.url === '/v1/drop') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: 1\n\n');
        setTimeout(() => res.socket?.destroy(), 20);
      } else if (req.url === '/v1/many') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let n = 0; n < 3_000; n++) res.write(`data: ${n}\n\n`);
        res.end();
      } else if (req.url === '/v1/endless') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const timer = setInterval(() => res.write('data: tick\n\n'), 5);
        res.on('close', () => {
          clearInterval(timer);
          endlessClosed.resolve();
        });
      } else if (req.url === '/v1/huge-error') {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.write('x'.repeat(48 * 1024));
        res.end('y'.repeat(48 * 1024));
      } else if (req.url === '/v1/echo') {
        // The request as the upstream received it: its content type, length and bytes.
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const body = Buffer.concat(chunks);
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              contentType: req.headers['content-type'],
              contentLength: req.headers['content-length'],
              body: body.toString('base64'),
            }),
          );
        });
      } else {
        res.writeHead(429, { 'retry-after': '2' }).end('{"error":"slow down"}');
      }
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  after(() => server.close());

  const timeouts = { connectMs: 1_000, firstByteMs: 300, totalMs: 5_000 };
  const signal = () => new AbortController().signal;

  it('opens a stream of server-sent events and hands them on as they arrive', async () => {
    const http = new UpstreamHttp('provider-a', base, timeouts);
    const opened = await http.openStream({ path: '/stream', body: { a: 1 }, signal: signal() });
    assert.equal(opened.kind, 'events');
    if (opened.kind !== 'events') return;
    assert.equal(opened.status, 200);
    assert.equal(opened.headers['content-type'], 'text/event-stream');
    const events = [];
    for await (const event of opened.events) events.push(event);
    assert.deepEqual(
      events.map((e) => [e.event, e.data]),
      [
        [undefined, '{"n":1}'],
        ['last', '{"n":2}'],
      ],
    );
    const split = await http.openStream({ path: '/stream-split', signal: signal() });
    assert.equal(split.kind, 'events');
    if (split.kind !== 'events') return;
    const data = [];
    for await (const event of split.events) data.push(event.data);
    assert.deepEqual(data, ['{"text":"café ✓"}']);
    await http.close();
  });

  it('reads an error answer whole, and any answer the caller asks to have whole', async () => {
    const http = new UpstreamHttp('provider-a', base, timeouts);
    const limited = await http.openStream({ path: '/limited', signal: signal() });
    assert.equal(limited.kind, 'whole');
    if (limited.kind !== 'whole') return;
    assert.equal(limited.response.status, 429);
    assert.equal(parseRetryAfter(limited.response.headers), 2_000);
    assert.equal(limited.response.text, '{"error":"slow down"}');
    const json = await http.openStream({ path: '/json', signal: signal() }, (_status, headers) =>
      String(headers['content-type']).includes('json'),
    );
    assert.equal(json.kind, 'whole');
    if (json.kind !== 'whole') return;
    assert.deepEqual(http.parseJson(json.response), { ok: true });
    await http.close();
  });

  it('pauses a stream the reader is slower than, and loses nothing', async () => {
    const http = new UpstreamHttp('provider-a', base, timeouts);
    const opened = await http.openStream({ path: '/many', signal: signal() });
    assert.equal(opened.kind, 'events');
    if (opened.kind !== 'events') return;
    const data: number[] = [];
    for await (const event of opened.events) {
      data.push(Number(event.data));
      if (data.length % 100 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    assert.deepEqual(
      data,
      Array.from({ length: 3_000 }, (_, n) => n),
    );
    await http.close();
  });

  it('a reader that stops early drops the connection', async () => {
    const http = new UpstreamHttp('provider-a', base, timeouts);
    const opened = await http.openStream({ path: '/endless', signal: signal() });
    assert.equal(opened.kind, 'events');
    if (opened.kind !== 'events') return;
    let seen = 0;
    for await (const _event of opened.events) if (++seen === 3) break;
    await endlessClosed.promise;
    // The pool still works after the dropped connection.
    assert.deepEqual(http.parseJson(await http.send({ path: '/json', signal: signal() })), { ok: true });
    await http.close();
  });

  it('maps failures while events are read: stalled body, dropped connection, caller abort, time limit', async () => {
    const read = async (http: UpstreamHttp, path: string, callerSignal = signal()) => {
      const opened = await http.openStream({ path, signal: callerSignal });
      assert.equal(opened.kind, 'events');
      if (opened.kind !== 'events') return [];
      const data = [];
      for await (const event of opened.events) data.push(event.data);
      return data;
    };
    const http = new UpstreamHttp('provider-b', base, timeouts);
    await assert.rejects(read(http, '/stall'), (e: ProviderError) => e.failure === 'timeout' && e.retryable);
    await assert.rejects(read(http, '/drop'), (e: ProviderError) => e.failure === 'connection');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    await assert.rejects(
      read(http, '/stall', controller.signal),
      (e: ProviderError) => e.failure === 'aborted' && !e.retryable,
    );
    assert.ok(Date.now() - started < 250, 'the abort ends the read at once');
    const total = new UpstreamHttp('provider-b', base, { ...timeouts, firstByteMs: 5_000, totalMs: 100 });
    await assert.rejects(
      read(total, '/stall'),
      (e: ProviderError) => e.failure === 'timeout' && e.message.endsWith('total time limit reached'),
    );
    await Promise.all([http.close(), total.close()]);
  });

  it('send reads a whole answer, joined across chunks, and parses it', async () => {
    const http = new UpstreamHttp('provider-a', base, timeouts);
    const json = await http.send({ path: '/json', body: { a: 1 }, signal: signal() });
    assert.equal(json.status, 200);
    assert.equal(json.headers['content-type'], 'application/json');
    assert.deepEqual(http.parseJson(json), { ok: true });
    const chunked = await http.send({ path: '/chunked', signal: signal() });
    assert.deepEqual(http.parseJson(chunked), { text: 'café ✓' });
    await http.close();
  });

  it('sends a long history as exactly the bytes JSON.stringify gives, and a short body too', async () => {
    const http = new UpstreamHttp('provider-a', base, timeouts);
    const history = {
      model: 'm',
      messages: Array.from({ length: 300 }, (_, n) => ({
        role: n % 2 === 0 ? 'user' : 'assistant',
        content: `turn ${n}: "quoted", line\nbreak, café ✓ 🙂 `.repeat(20),
        name: undefined,
      })),
      stream: false,
    };
    for (const body of [history, { model: 'm', messages: [{ role: 'user', content: 'hi ✓' }] }]) {
      const answer = await http.send({ path: '/echo', body, signal: signal() });
      const received = http.parseJson(answer) as { contentType: string; contentLength: string; body: string };
      const expected = Buffer.from(JSON.stringify(body));
      assert.equal(received.contentType, 'application/json');
      assert.equal(received.contentLength, String(expected.length));
      assert.ok(Buffer.from(received.body, 'base64').equals(expected));
    }
    await http.close();
  });

  it('send hands back error answers with headers, keeping only the first 64 KiB of the body', async () => {
    const http = new UpstreamHttp('provider-a', base, timeouts);
    const limited = await http.send({ path: '/limited', signal: signal() });
    assert.equal(limited.status, 429);
    assert.equal(parseRetryAfter(limited.headers), 2_000);
    assert.equal(limited.text, '{"error":"slow down"}');
    const huge = await http.send({ path: '/huge-error', signal: signal() });
    assert.equal(huge.status, 500);
    assert.equal(huge.text.length, 64 * 1024);
    assert.match(huge.text, /^x+y+$/);
    // The connection the cut-off answer was on is dropped, not reused half-read.
    assert.deepEqual(http.parseJson(await http.send({ path: '/json', signal: signal() })), { ok: true });
    await http.close();
  });

  // Both calls go through one dispatch path; each must map every failure before an answer.
  const calls = {
    send: (http: UpstreamHttp, request: UpstreamRequest) => http.send(request),
    openStream: (http: UpstreamHttp, request: UpstreamRequest) => http.openStream(request),
  };
  for (const [name, call] of Object.entries(calls)) {
    it(`${name} maps transport failures: first-byte timeout, refused connection, caller abort, time limit`, async () => {
      const http = new UpstreamHttp('provider-b', base, timeouts);
      await assert.rejects(
        call(http, { path: '/slow', signal: signal() }),
        (e: ProviderError) => e.failure === 'timeout' && e.retryable,
      );
      const refused = new UpstreamHttp('provider-b', 'http://127.0.0.1:1/v1', timeouts);
      await assert.rejects(
        call(refused, { path: '/x', signal: signal() }),
        (e: ProviderError) => e.failure === 'connection' && e.retryable,
      );
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const started = Date.now();
      await assert.rejects(
        call(http, { path: '/slow', signal: controller.signal }),
        (e: ProviderError) => e.failure === 'aborted' && !e.retryable,
      );
      assert.ok(Date.now() - started < 250, 'the abort settles the call at once');
      const gone = new AbortController();
      gone.abort();
      await assert.rejects(
        call(http, { path: '/json', signal: gone.signal }),
        (e: ProviderError) => e.failure === 'aborted',
      );
      const total = new UpstreamHttp('provider-b', base, { ...timeouts, firstByteMs: 5_000, totalMs: 100 });
      await assert.rejects(
        call(total, { path: '/slow', signal: signal() }),
        (e: ProviderError) => e.failure === 'timeout' && e.message.endsWith('total time limit reached'),
      );
      await Promise.all([http.close(), refused.close(), total.close()]);
    });
  }

  it('a non-JSON 2xx body is an invalid response', async () => {
    const http = new UpstreamHttp('provider-b', base, timeouts);
    const notJson = await http.send({ path: '/not-json', signal: signal() });
    assert.throws(
      () => http.parseJson(notJson),
      (e: ProviderError) => e.failure === 'invalid_response' && e.status === 200,
    );
    await http.close();
  });
});

describe('parseRetryAfter', () => {
  it('reads milliseconds, seconds and HTTP dates', () => {
    assert.equal(parseRetryAfter({ 'retry-after-ms': '150' }), 150);
    assert.equal(parseRetryAfter({ 'retry-after': '3' }), 3000);
    assert.equal(
      parseRetryAfter(
        { 'retry-after': 'Wed, 21 Oct 2015 07:28:10 GMT' },
        Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'),
      ),
      10_000,
    );
    assert.equal(parseRetryAfter({ 'retry-after': 'soon' }), undefined);
    assert.equal(parseRetryAfter({}), undefined);
  });
});
