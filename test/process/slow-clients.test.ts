import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  assertEnvelope,
  exchange,
  type ListeningApp,
  listenBoth,
  RAW_APP,
  RAW_SECRET,
  trickle,
} from '../helpers/raw-http.ts';

const HEADERS_TIMEOUT_MS = 300;
const REQUEST_TIMEOUT_MS = 800;

describe('slow clients are cut off with a 408 envelope', () => {
  let server: ListeningApp;
  before(async () => {
    server = await listenBoth({
      HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      KEEP_ALIVE_TIMEOUT_MS: '400',
    });
  });
  after(() => server.close());

  it('headers trickled past HEADERS_TIMEOUT_MS get 408 request_timeout, on both surfaces', async () => {
    for (const port of [server.gatewayPort, server.sitePort]) {
      const answer = await trickle(
        port,
        'GET /up HTTP/1.1\r\nHost: x\r\n',
        `X-Slow: ${'a'.repeat(200)}`,
        50,
        5_000,
      );
      assertEnvelope(answer, 408, 'request_timeout');
      // Node checks on a tick of a quarter of the timeout; the answer comes well before 2 s.
      assert.ok(answer.ms >= HEADERS_TIMEOUT_MS - 20 && answer.ms < 2_000, `cut after ${answer.ms} ms`);
    }
  });

  it('a body trickled past REQUEST_TIMEOUT_MS gets 408, on /v1/chat, /api/newsletter and /mcp', async () => {
    const auth = `x-gateway-app: ${RAW_APP}\r\nx-gateway-secret: ${RAW_SECRET}\r\n`;
    const targets = [
      [server.gatewayPort, '/v1/chat', auth],
      [server.sitePort, '/api/newsletter', ''],
      [server.sitePort, '/mcp', 'Accept: application/json, text/event-stream\r\n'],
    ] as const;
    const answers = await Promise.all(
      targets.map(([port, path, extra]) =>
        trickle(
          port,
          `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extra}Content-Length: 200\r\n\r\n`,
          `{"email":"${'a'.repeat(180)}`,
          50,
          5_000,
        ),
      ),
    );
    for (const answer of answers) {
      assertEnvelope(answer, 408, 'request_timeout');
      assert.ok(answer.ms >= REQUEST_TIMEOUT_MS - 20 && answer.ms < 2_500, `cut after ${answer.ms} ms`);
    }
  });

  it('a streamed answer longer than REQUEST_TIMEOUT_MS is not cut: the timeout covers receiving the request', async () => {
    const started = Date.now();
    const res = await fetch(`http://127.0.0.1:${server.gatewayPort}/v1/chat`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gateway-app': RAW_APP,
        'x-gateway-secret': RAW_SECRET,
      },
      body: JSON.stringify({
        stream: true,
        messages: [{ role: 'user', content: 'tell me a long story' }],
        metadata: { simulated: { chunkDelayMs: 150 } },
      }),
    });
    assert.equal(res.status, 200);
    const text = await res.text();
    const took = Date.now() - started;
    assert.ok(took > REQUEST_TIMEOUT_MS * 1.5, `the stream lasted ${took} ms, past the request timeout`);
    assert.match(text, /event: done/);
  });

  it('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const socket = connect(server.sitePort, '127.0.0.1');
    const started = Date.now();
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    socket.write('GET /up HTTP/1.1\r\nHost: x\r\n\r\n');
    const closedAfter = await new Promise<number>((resolve) => {
      const giveUp = setTimeout(() => socket.destroy(), 10_000);
      socket.on('close', () => {
        clearTimeout(giveUp);
        resolve(Date.now() - started);
      });
    });
    assert.match(received, /^HTTP\/1\.1 200/);
    assert.ok(closedAfter < 3_000, `closed after ${closedAfter} ms`);
  });
});

describe('surface B caps requests in progress per client address', () => {
  let server: ListeningApp;
  before(async () => {
    server = await listenBoth({
      SITE_MAX_CONCURRENT_REQUESTS_PER_CLIENT: '3',
      HEADERS_TIMEOUT_MS: '2000',
      REQUEST_TIMEOUT_MS: '10000',
      TRUST_PROXY: 'true',
    });
  });
  after(() => server.close());

  const slowSignup = (forwardedFor: string) =>
    trickle(
      server.sitePort,
      'POST /api/newsletter HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `X-Forwarded-For: ${forwardedFor}\r\nContent-Length: 100\r\n\r\n`,
      'aaaaaaaaaa',
      100,
      1_200,
    );
  const get = (forwardedFor: string) =>
    exchange(
      server.sitePort,
      `GET /up HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${forwardedFor}\r\nConnection: close\r\n\r\n`,
    );

  it('past the cap a request gets 429 rate_limited; other addresses and later requests are served', async () => {
    const slow = [slowSignup('203.0.113.7'), slowSignup('203.0.113.7'), slowSignup('203.0.113.7')];
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = await get('203.0.113.7');
    assertEnvelope(refused, 429, 'rate_limited');
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(refused.headers.connection, 'close');
    assert.equal((await get('198.51.100.1')).status, 200, 'another client is not affected');
    await Promise.all(slow);
    assert.equal((await get('203.0.113.7')).status, 200, 'the count falls when the connections close');
  });

  it('the gateway has no such cap', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        exchange(server.gatewayPort, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      ),
    );
    for (const answer of answers) assert.equal(answer.status, 200);
  });
});
