import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { onlyLedgerRow } from '../helpers/ledger-row.ts';
import {
  type MockAnthropicServer,
  sseMessages,
  startMockAnthropic,
} from '../helpers/mock-anthropic-server.ts';

/**
 * Upstream failures on the Anthropic door's same-vendor lane: a stream whose first event is an
 * `error` is a failed call (retried on the slot, as a 529 status would be); an `error` event after
 * the stream began is passed on as the upstream sent it, and the ledger row says the stream failed.
 */

const SSE = { 'content-type': 'text/event-stream' };
const OVERLOADED =
  'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
const START =
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":20,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"output_tokens":1}}}\n\n';

describe('upstream failures on the same-vendor lane', () => {
  let mock: MockAnthropicServer;
  before(async () => {
    mock = await startMockAnthropic({ eventDelayMs: 0 });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'anthropic', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: 'sk-ant' },
    file: { retry: { baseDelayMs: 1, maxDelayMs: 5 } },
  }));
  after(() => mock.close());

  const stream = () =>
    gw.gateway.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: {
        'content-type': 'application/json',
        'x-api-key': `${APP}:${SECRET}`,
        'anthropic-version': '2023-06-01',
      },
      payload: JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 16,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });

  it('an error as the first event is a failed call: retried, and the retry’s stream relayed', async () => {
    mock.failNext(1, { status: 200, headers: SSE, body: OVERLOADED });
    mock.replyNext({ text: 'Second time lucky.' });
    const before = mock.requests.length;
    const reply = await stream();
    assert.equal(reply.statusCode, 200, reply.body);
    assert.equal(mock.requests.length, before + 2);
    assert.ok(!reply.body.includes('overloaded_error'));
    const text = sseMessages(reply.body)
      .filter((event) => event.event === 'content_block_delta')
      .map((event) => JSON.parse(event.data).delta.text)
      .join('');
    assert.equal(text, 'Second time lucky.');
    const row = await onlyLedgerRow(gw, String(reply.headers['x-request-id']));
    assert.deepEqual([row.status, row.attempts.length, row.attempts[0]?.upstreamStatus], [200, 2, 529]);
  });

  it('an error event after the stream began is passed on as sent; the row is a failed stream', async () => {
    mock.failNext(1, { status: 200, headers: SSE, body: START + OVERLOADED });
    const reply = await stream();
    assert.equal(reply.statusCode, 200);
    assert.equal(reply.body, START + OVERLOADED);
    const events = sseMessages(reply.body).map((event) => event.event);
    assert.deepEqual(events, ['message_start', 'error']);
    const row = await onlyLedgerRow(gw, String(reply.headers['x-request-id']));
    assert.equal(row.attempts.at(-1)?.outcome, 'stream_failed');
    assert.equal(row.errorCode, 'upstream_error');
    assert.equal(row.tokensIn, 20, 'message_start’s counts are kept');
  });
});
