import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { STRICT, shareGuardedGateway, TIGHT } from '../helpers/guarded-gateway.ts';
import { onlyLedgerRow } from '../helpers/ledger-row.ts';
import { parseSse } from '../helpers/parse-sse.ts';

/**
 * An output webhook over a streamed answer (CONTRACT 6.6: the output phase is the answer,
 * streamed or not): the webhook is asked about what the hold-back window lets go, one call at a
 * time, a piece ending at white space; its mask reaches the client, its block ends the stream
 * with the door's error event, and its timeout does what `failureMode` says, each call bounded by
 * `timeoutMs`. The row has the webhook's action, the webhook's last verdict included.
 */

interface HookCall {
  phase: string;
  texts: string[];
}

function startHook(): Promise<{ server: Server; origin: string; calls: HookCall[] }> {
  const calls: HookCall[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => {
      text += chunk;
    });
    request.on('end', () => {
      const body = JSON.parse(text) as HookCall;
      calls.push(body);
      if (request.url === '/slow') setTimeout(() => response.end('{"action":"allow"}'), 1500).unref();
      else if (request.url === '/block')
        response.end(
          JSON.stringify({ action: body.texts.some((item) => item.includes('Falcon')) ? 'block' : 'allow' }),
        );
      else
        response.end(
          JSON.stringify({
            action: 'mask',
            replacements: body.texts.map((item) => item.replaceAll('Falcon', '[X]')),
          }),
        );
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls }),
    ),
  );
}

const GUARDS = {
  guards: {
    review: { type: 'webhook', phase: 'output', url: '', timeoutMs: 1000 },
    deny: { type: 'webhook', phase: 'output', url: '', timeoutMs: 1000 },
    'slow-open': { type: 'webhook', phase: 'output', url: '', timeoutMs: 100, failureMode: 'open' },
  },
  apps: { 'test-app': ['review'], strict: ['deny'], tight: ['slow-open'] },
};

describe('output webhooks over a stream', () => {
  let hook: Awaited<ReturnType<typeof startHook>>;
  before(async () => {
    hook = await startHook();
    GUARDS.guards.review.url = `${hook.origin}/mask`;
    GUARDS.guards.deny.url = `${hook.origin}/block`;
    GUARDS.guards['slow-open'].url = `${hook.origin}/slow`;
  });
  after(() => hook.server.close());
  const shared = shareGuardedGateway(GUARDS);
  const gw = shared.gw;
  // Past the 256-character window, the codename in several places, every chunk 7 characters.
  const answer = `Project Falcon notes. ${'The launch plan stays on track. '.repeat(12)}Falcon ships soon. ${'More words follow here. '.repeat(12)}End of Falcon.`;
  const masked = answer.replaceAll('Falcon', '[X]');

  it('masks a native stream through the webhook, fewer calls than chunks, the row has its action', async () => {
    const before = hook.calls.length;
    shared.openai.replyNext({ text: answer, fragmentSize: 7 });
    const reply = await gw.stream({ provider: 'provider-a', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(reply.status, 200, reply.text);
    const deltas = reply.events
      .filter((event) => event.event === 'delta')
      .map((event) => (event.data as any).content);
    assert.equal(deltas.join(''), masked);
    assert.equal((reply.events.at(-1)?.data as any)?.message?.content, masked);
    const calls = hook.calls.slice(before);
    assert.ok(calls.length >= 1 && calls.length < Math.ceil(answer.length / 7), `${calls.length} calls`);
    assert.ok(calls.every((call) => call.phase === 'output'));
    // Every piece ends at white space (or is the answer's end): no call saw half a word.
    assert.equal(calls.map((call) => call.texts[0]).join(''), answer);
    for (const call of calls.slice(0, -1)) assert.match(call.texts[0] ?? '', /\s$/);
    const row = await onlyLedgerRow(gw, reply.headers['x-request-id'] as string);
    assert.equal(row.guardrails, 'review:output:mask');
  });

  it('masks the Anthropic door streaming from an anthropic slot (the translated way, which asks the webhook)', async () => {
    shared.anthropic.replyNext({ text: answer, fragmentSize: 7 });
    const reply = await gw.gateway.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: {
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
        'x-api-key': 'test-app:test-secret-0123456789',
      },
      payload:
        '{"model":"claude-sonnet-4-5","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"x"}]}',
    });
    assert.equal(reply.statusCode, 200, reply.body);
    const text = parseSse(reply.body)
      .filter((event) => event.event === 'content_block_delta')
      .map((event) => (event.data as any).delta.text ?? '')
      .join('');
    assert.equal(text, masked);
  });

  it("ends the stream with the door's error event when the webhook blocks, and the row says so", async () => {
    shared.openai.replyNext({ text: answer, fragmentSize: 7 });
    const reply = await gw.post(
      '/v1/chat/completions',
      { model: 'provider-a/gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'x' }] },
      { headers: STRICT },
    );
    assert.equal(reply.status, 200);
    assert.match(reply.text, /guardrail_blocked/);
    assert.equal(reply.text.includes('Falcon'), false);
    const row = await onlyLedgerRow(gw, reply.headers['x-request-id'] as string);
    assert.equal(row.errorCode, 'guardrail_blocked');
    assert.equal(row.guardrails, 'deny:output:block');
  });

  it("waits for the webhook's verdict on the stream's last text before the row is written", async () => {
    // The only codename is in the last words: the window lets them go when the upstream ends,
    // which is when the run finishes; the row must still have the block.
    const late = `${'The launch plan stays on track. '.repeat(12)}End of Falcon`;
    shared.openai.replyNext({ text: late, fragmentSize: 7 });
    const reply = await gw.post(
      '/v1/chat/completions',
      { model: 'provider-a/gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'x' }] },
      { headers: STRICT },
    );
    assert.equal(reply.status, 200);
    assert.match(reply.text, /guardrail_blocked/);
    assert.equal(reply.text.includes('Falcon'), false);
    const row = await onlyLedgerRow(gw, reply.headers['x-request-id'] as string);
    assert.equal(row.errorCode, 'guardrail_blocked');
    assert.equal(row.guardrails, 'deny:output:block');
  });

  it('lets the stream go as written when the webhook times out and fails open, each call bounded by its timeout', async () => {
    const started = Date.now();
    shared.openai.replyNext({ text: answer, fragmentSize: 7 });
    const reply = await gw.stream(
      { provider: 'provider-a', messages: [{ role: 'user', content: 'x' }] },
      { headers: TIGHT },
    );
    assert.equal(reply.status, 200, reply.text);
    const deltas = reply.events
      .filter((event) => event.event === 'delta')
      .map((event) => (event.data as any).content);
    assert.equal(deltas.join(''), answer);
    // The webhook answers after 1.5 s; every call was cut at 100 ms.
    assert.ok(Date.now() - started < 1500 * 2, `${Date.now() - started} ms`);
    const row = await onlyLedgerRow(gw, reply.headers['x-request-id'] as string);
    assert.equal(row.guardrails, 'slow-open:output:log');
    assert.equal(row.status, 200);
  });
});
