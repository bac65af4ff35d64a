import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { errorStatus } from '../../src/platform/errors.ts';
import { readFirstAnswer } from '../helpers/first-answer.ts';
import { type ListeningApp, listenBoth, type RawAnswer } from '../helpers/raw-http.ts';

/**
 * Malformed HTTP written straight to the sockets of both surfaces: whatever a client sends, it gets
 * an answer (never a reset or a silent close), every answer carries x-request-id, and every error
 * answer is the envelope. FUZZ_RUNS scales the run (raw connections are a fifth of it; default 400).
 */
const RUNS = Math.max(50, Math.round(Number(process.env.FUZZ_RUNS ?? 2_000) / 5));
// CI replays one fixed run, so a landing is never decided by which requests a seed happened to
// draw; elsewhere each run draws new ones (FUZZ_SEED replays any run, fast-check prints its seed).
const SEED =
  process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : process.env.CI ? 20261125 : undefined;

let servers: ListeningApp;
const portOf = (surface: 'gateway' | 'site') =>
  surface === 'gateway' ? servers.gatewayPort : servers.sitePort;

before(async () => {
  // Short timeouts: a request whose framing promises bytes that never come is answered 408 in the run.
  servers = await listenBoth({ HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '1500' });
});

after(async () => {
  await servers.close();
});

const CRLF = '\r\n';

const method = fc.constantFrom('GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'TRACE', 'FOO', 'G ET', '');
const target = fc.oneof(
  fc.constantFrom(
    '/health',
    '/up',
    '/v1/chat',
    '/api/newsletter',
    '/mcp',
    '/openapi.json',
    '/.well-known/api-catalog',
  ),
  fc.constantFrom(
    '/%',
    '/%zz',
    '/%E0%A4%A',
    '/a b',
    '*',
    'http://example.com/',
    '//',
    '/*/x',
    '/\u0000',
    '/\u00ff',
  ),
  fc.integer({ min: 10_000, max: 100_000 }).map((n) => `/${'a'.repeat(n)}`),
  fc.string({ maxLength: 30 }),
);
const version = fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1x', '');
const headerLine = fc.oneof(
  fc.constantFrom(
    'Content-Type: application/json',
    'Content-Type: text/plain',
    'Content-Length: -1',
    'Content-Length: abc',
    'Content-Length: 1, 2',
    'Transfer-Encoding: gzip, chunked',
    'bad header',
    ':nope',
    'x\u0000y: z',
    'X-Request-Id: \u00ff\u00fe',
    'Connection: close',
  ),
  fc.integer({ min: 10_000, max: 100_000 }).map((n) => `X-Big: ${'a'.repeat(n)}`),
  fc
    .tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 40 }))
    .map(([name, value]) => `${name}: ${value}`),
);
/** A body that agrees with its framing (so the server never waits for bytes that will not come), or a broken chunked one. */
const framedBody = fc.oneof(
  fc.constant(''),
  fc
    .string({ maxLength: 300 })
    .map((body) => `Content-Length: ${Buffer.byteLength(body)}${CRLF}${CRLF}${body}`),
  fc
    .string({ maxLength: 100 })
    .map((body) => `Transfer-Encoding: chunked${CRLF}${CRLF}${body}${CRLF}0${CRLF}${CRLF}`),
  fc
    .string({ maxLength: 100 })
    .map(
      (body) =>
        `Transfer-Encoding: chunked${CRLF}${CRLF}${Buffer.byteLength(body).toString(16)}${CRLF}${body}${CRLF}0${CRLF}${CRLF}`,
    ),
);

const rawRequest = fc
  .record({ method, target, version, headers: fc.array(headerLine, { maxLength: 4 }), body: framedBody })
  .map(({ method, target, version, headers, body }) => {
    const head = [`${method} ${target} ${version}`, 'Host: localhost', ...headers].join(CRLF);
    const text = body === '' ? `${head}${CRLF}${CRLF}` : `${head}${CRLF}${body}`;
    return Object.defineProperty({ text, method }, fc.toStringMethod, {
      value: () => JSON.stringify(text.length > 400 ? `${text.slice(0, 400)}…(${text.length})` : text),
    });
  });

function checkRawAnswer(method: string, answer: RawAnswer, where: string): void {
  assert.ok(
    answer.error !== 'ECONNRESET' && answer.error !== 'EPIPE',
    `connection ${answer.error}: ${where}`,
  );
  assert.ok(Number.isInteger(answer.status), `closed without an answer: ${where}`);
  const status = answer.status;
  assert.ok(status < 500 || status === 503, `server error ${status}: ${where}`);
  assert.ok(answer.headers['x-request-id'], `no x-request-id on ${status}: ${where}`);
  if (status < 400 || method === 'HEAD' || answer.body === '') return;
  const body = JSON.parse(answer.body) as { error?: { code?: string }; jsonrpc?: string };
  if (body.jsonrpc === '2.0') return;
  const code = body.error?.code;
  assert.ok(
    code !== undefined && Object.hasOwn(errorStatus, code),
    `not the envelope: ${where} ${answer.body}`,
  );
}

for (const surface of ['gateway', 'site'] as const) {
  describe(`malformed HTTP to the ${surface} surface (${RUNS} connections)`, () => {
    it('answers every connection with the envelope and an x-request-id', async () => {
      await fc.assert(
        fc.asyncProperty(rawRequest, async ({ text, method }) => {
          const answer = await readFirstAnswer(portOf(surface), Buffer.from(text, 'utf8'));
          checkRawAnswer(method, answer, `${JSON.stringify(text.slice(0, 200))} -> ${answer.status}`);
        }),
        { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true },
      );
      const started = performance.now();
      const path = surface === 'gateway' ? '/health' : '/up';
      const health = await readFirstAnswer(
        portOf(surface),
        Buffer.from(`GET ${path} HTTP/1.1${CRLF}Host: x${CRLF}${CRLF}`),
      );
      assert.equal(health.status, 200);
      assert.ok(performance.now() - started < 1_000, 'the server still answers at once');
    });
  });
}
