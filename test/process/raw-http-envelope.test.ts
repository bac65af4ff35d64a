import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  assertEnvelope,
  exchange,
  type ListeningApp,
  listenBoth,
  parseAnswer,
  RAW_APP,
  RAW_SECRET,
} from '../helpers/raw-http.ts';

const MAX_BODY = 4096;

describe('answers Fastify and Node write themselves are the envelope with an x-request-id', () => {
  let server: ListeningApp;
  before(async () => {
    server = await listenBoth({ MAX_BODY_BYTES: String(MAX_BODY) });
  });
  after(() => server.close());
  const surfaces = () =>
    [
      ['gateway', server.gatewayPort],
      ['site', server.sitePort],
    ] as const;

  it('a path with * before its end is a 404, not a 500, on both surfaces', async () => {
    for (const [name, port] of surfaces()) {
      for (const path of ['/*/x', '/a*/x', '/v1/*', '/:x/y', '/(a)/b']) {
        const answer = await exchange(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
        assertEnvelope(answer, 404, 'not_found');
        assert.ok(answer.body.includes(path), `${name} ${path}`);
      }
    }
  });

  it('malformed HTTP is a 400 invalid_request', async () => {
    for (const [, port] of surfaces()) {
      assertEnvelope(await exchange(port, 'GARBAGE\r\n\r\n'), 400, 'invalid_request');
      assertEnvelope(
        await exchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'),
        400,
        'invalid_request',
      );
    }
  });

  it('headers over the size limit are a 431 headers_too_large', async () => {
    for (const [, port] of surfaces()) {
      const answer = await exchange(
        port,
        `GET /up HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`,
        { writeAllBeforeReading: true },
      );
      assertEnvelope(answer, 431, 'headers_too_large');
    }
  });

  it('bad percent-encoding in the path is a 400 invalid_request', async () => {
    for (const [, port] of surfaces()) {
      for (const path of ['/%zz', '/api/%E0%A4%A']) {
        const answer = await exchange(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
        assertEnvelope(answer, 400, 'invalid_request');
      }
    }
  });

  it('a malformed body after a request already being answered: the whole answer, then the connection closes', async () => {
    // A GET is answered without its body being read; the broken chunk is found while the answer
    // (the OpenAPI document, tens of kB) is still being written. Found by the raw-HTTP fuzz.
    for (const [name, port] of surfaces()) {
      for (const version of ['HTTP/1.1', 'HTTP/2.0', 'HTTP/1.0']) {
        const answer = await exchange(
          port,
          `GET /openapi.json ${version}\r\nHost: x\r\nContent-Type: application/json\r\n` +
            'Transfer-Encoding: chunked\r\n\r\n`5\r\n0\r\n\r\n',
        );
        assert.equal(answer.status, 200, `${name} ${version}: ${answer.error ?? ''}`);
        assert.equal(answer.error, undefined, `${name} ${version}`);
        const document = JSON.parse(answer.body) as { openapi?: string };
        assert.match(String(document.openapi), /^3\./, `${name} ${version}: the whole document`);
      }
    }
  });

  it('a body over MAX_BODY_BYTES written whole before reading gets the 413, never a reset', async () => {
    // 6 MiB: past what loopback socket buffers hold, so the client is still writing when the
    // server answers, and within the 8 MiB the server reads on after a 413.
    const body = Buffer.alloc(6 * 1024 * 1024, 'a');
    const requests = [
      [server.sitePort, '/api/newsletter', {}],
      [server.gatewayPort, '/v1/chat', { 'x-gateway-app': RAW_APP, 'x-gateway-secret': RAW_SECRET }],
    ] as const;
    for (const [port, path, auth] of requests) {
      for (const framing of ['content-length', 'chunked'] as const) {
        for (let round = 0; round < 3; round++) {
          const extra = Object.entries(auth)
            .map(([k, v]) => `${k}: ${v}\r\n`)
            .join('');
          const head =
            `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extra}` +
            (framing === 'chunked'
              ? 'Transfer-Encoding: chunked\r\n\r\n'
              : `Content-Length: ${body.length}\r\n\r\n`);
          const payload =
            framing === 'chunked'
              ? Buffer.concat([
                  Buffer.from(`${body.length.toString(16)}\r\n`),
                  body,
                  Buffer.from('\r\n0\r\n\r\n'),
                ])
              : body;
          const answer = await exchange(port, Buffer.concat([Buffer.from(head), payload]), {
            writeAllBeforeReading: true,
          });
          assertEnvelope(answer, 413, 'payload_too_large');
        }
      }
    }
  });
});

describe('a request arriving while the server drains on SIGTERM', () => {
  it('gets 503 shutting_down in the envelope with an x-request-id', async () => {
    const server = await listenBoth({ SURFACES: 'gateway,site' });
    // A slow answer keeps the connection busy, so close() cannot reap it; the second request,
    // pipelined on it after close() began, is one Fastify would refuse with its own body.
    const socket = connect(server.gatewayPort, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const slow = JSON.stringify({
      messages: [{ role: 'user', content: 'hi' }],
      metadata: { simulated: { latencyMs: 600 } },
    });
    socket.write(
      'POST /v1/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `x-gateway-app: ${RAW_APP}\r\nx-gateway-secret: ${RAW_SECRET}\r\n` +
        `Content-Length: ${Buffer.byteLength(slow)}\r\n\r\n${slow}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 150));
    const closing = server.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    await Promise.all([closing, closed]);
    const raw = Buffer.concat(received).toString('latin1');
    const second = raw.indexOf('HTTP/1.1', 1);
    assert.ok(second > 0, `two answers on the connection:\n${raw}`);
    assert.equal(parseAnswer(raw.slice(0, second)).status, 200, 'the in-flight request finished');
    const refused = parseAnswer(raw.slice(second));
    assertEnvelope({ ...refused, error: undefined, ms: 0 }, 503, 'shutting_down');
    assert.equal(refused.headers.connection, 'close');
    assert.equal(refused.headers['retry-after'], '1');
  });
});
