import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { checkTexts } from './check-texts.ts';
import { compileGuards } from './compile-guards.ts';

/** A local webhook whose answer each test picks by path: slow, failing, garbage, oversized, or a verdict. */
function startHook(): Promise<{ server: Server; url: (path: string) => string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => {
      text += chunk;
    });
    request.on('end', () => {
      const body = JSON.parse(text) as { texts: string[] };
      bodies.push(body);
      const path = request.url ?? '';
      if (path === '/slow') setTimeout(() => response.end('{"action":"allow"}'), 2000).unref();
      else if (path === '/error') response.writeHead(500).end('boom');
      else if (path === '/garbage') response.end('<html>not json</html>');
      else if (path === '/huge') response.end(`{"action":"allow","pad":"${'x'.repeat(5000)}"}`);
      else if (path === '/short') response.end('{"action":"mask","replacements":["only one"]}');
      else if (path === '/block') response.end('{"action":"block"}');
      else if (path === '/mask')
        response.end(
          JSON.stringify({
            action: 'mask',
            replacements: body.texts.map((item) => item.replace(/Falcon/g, '[X]')),
          }),
        );
      else response.end('{"action":"allow"}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: (path) => `http://127.0.0.1:${port}${path}`, bodies });
    }),
  );
}

describe('the webhook guard', () => {
  let hook: Awaited<ReturnType<typeof startHook>>;
  before(async () => {
    hook = await startHook();
  });
  after(() => hook.server.close());

  const guard = (path: string, failureMode: 'open' | 'closed', timeoutMs = 300) =>
    compileGuards([
      {
        name: 'review',
        type: 'webhook',
        phases: ['input'],
        action: 'block',
        url: hook.url(path),
        headers: { authorization: 'Bearer hook-token' },
        timeoutMs,
        failureMode,
        maxResponseBytes: 1024,
      },
    ]);
  const context = { app: 'agent', team: 'platform', model: 'gpt-4o-mini' };
  const texts = ['Project Falcon', 'second'];

  it('posts {phase, app, team, model, texts} and applies a mask answer, one replacement per text', async () => {
    const verdict = await checkTexts('input', guard('/mask', 'closed', 3000), texts, context);
    assert.deepEqual(verdict.texts, ['Project [X]', 'second']);
    assert.deepEqual(verdict.events, [{ guard: 'review', phase: 'input', action: 'mask' }]);
    assert.deepEqual(hook.bodies.at(-1), { phase: 'input', ...context, texts });
  });

  it('applies a block and an allow', async () => {
    assert.equal(
      (await checkTexts('input', guard('/block', 'open', 3000), texts, context)).blockedBy,
      'review',
    );
    const allowed = await checkTexts('input', guard('/allow', 'closed', 3000), texts, context);
    assert.equal(allowed.blockedBy, undefined);
    assert.deepEqual(allowed.events, []);
  });

  for (const [path, reason] of [
    ['/slow', /did not answer within 300 ms/],
    ['/error', /answered status 500/],
    ['/garbage', /not JSON/],
    ['/huge', /more than 1024 bytes/],
    ['/short', /one string per text/],
  ] as const) {
    it(`${path.slice(1)}: failureMode closed blocks, open lets the texts through; the reason is logged, never the texts`, async () => {
      const reasons: string[] = [];
      const started = performance.now();
      const closed = await checkTexts('input', guard(path, 'closed'), texts, context, (_g, _p, why) =>
        reasons.push(why),
      );
      assert.ok(performance.now() - started < 1500, 'bounded by the timeout');
      assert.equal(closed.blockedBy, 'review');
      const open = await checkTexts('input', guard(path, 'open'), texts, context, (_g, _p, why) =>
        reasons.push(why),
      );
      assert.equal(open.blockedBy, undefined);
      assert.deepEqual(open.texts, texts);
      assert.deepEqual(open.events, [{ guard: 'review', phase: 'input', action: 'log' }]);
      assert.match(reasons[0] ?? '', reason);
      assert.equal(reasons.join(' ').includes('Falcon'), false);
    });
  }

  it('an unreachable webhook fails as the mode says', async () => {
    const gone = compileGuards([
      {
        name: 'gone',
        type: 'webhook',
        phases: ['output'],
        action: 'block',
        url: 'http://127.0.0.1:9/hook',
        headers: {},
        timeoutMs: 500,
        failureMode: 'closed',
        maxResponseBytes: 1024,
      },
    ]);
    assert.equal((await checkTexts('output', gone, texts, context)).blockedBy, 'gone');
  });
});
