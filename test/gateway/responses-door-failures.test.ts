import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { clockAtMinuteStart } from '../helpers/minute-clock.ts';
import { checkResponseStream } from '../helpers/open-responses-schema.ts';
import { parseSse } from '../helpers/parse-sse.ts';
import { parsePrometheusText, sumOf } from '../helpers/prometheus-text.ts';

/**
 * How the Responses door fails (CONTRACT 5.4, 5.9): after the stream's first byte, as
 * `response.failed` with OpenAI's error code; before it, as an HTTP error in OpenAI's shape with
 * the limit headers of OpenAI's convention.
 */

const bearer = { auth: false, headers: { authorization: `Bearer ${APP}:${SECRET}` } };

describe('the Responses door when the upstream fails mid-stream', () => {
  const gw = shareGateway();

  it('ends the stream with response.failed, server_error, after the text it had', async () => {
    const reply = await gw.post(
      '/v1/responses',
      {
        model: 'chat',
        stream: true,
        input: 'Tell me a long story.',
        metadata: { simulated: { fault: 'stream_cut' } },
      },
      bearer,
    );
    assert.equal(reply.status, 200);
    const events = parseSse(reply.text).map((event) => event.data as Record<string, any>);
    assert.deepEqual(checkResponseStream(events), []);
    const last = events.at(-1) ?? {};
    assert.equal(last['type'], 'response.failed');
    assert.equal(last['response'].status, 'failed');
    assert.equal(last['response'].error.code, 'server_error');
    assert.ok(events.some((event) => event['type'] === 'response.output_text.delta'));
  });

  it('a whole answer whose upstream fails is an HTTP error in OpenAI shape', async () => {
    const reply = await gw.post(
      '/v1/responses',
      { model: 'chat', input: 'hi', metadata: { simulated: { fault: 'server_error' } } },
      bearer,
    );
    assert.ok(reply.status >= 500, String(reply.status));
    assert.equal(reply.body.error.type, 'server_error');
  });
});

describe('the Responses door under an app limit', () => {
  const gw = shareGateway({
    clock: clockAtMinuteStart(),
    file: { limits: { apps: { [APP]: { requestsPerMinute: 1 } } } },
  });

  it('answers with x-ratelimit-* and refuses the next stream before its first byte with a 429', async () => {
    const first = await gw.post('/v1/responses', { model: 'chat', input: 'hi' }, bearer);
    assert.equal(first.status, 200);
    assert.equal(first.headers['x-ratelimit-limit-requests'], '1');
    const second = await gw.post('/v1/responses', { model: 'chat', input: 'hi', stream: true }, bearer);
    assert.equal(second.status, 429);
    assert.match(String(second.headers['content-type']), /json/);
    assert.equal(second.body.error.type, 'requests');
    assert.equal(second.body.error.code, 'rate_limit_exceeded');
    assert.ok(Number(second.headers['retry-after']) > 0);
  });
});

describe('the Responses door in /metrics', () => {
  const gw = shareGateway();

  it("counts its requests under front_door 'responses', and a refused WebSocket handshake not at all", async () => {
    assert.equal((await gw.post('/v1/responses', { model: 'chat', input: 'hi' }, bearer)).status, 200);
    assert.equal((await gw.post('/v1/responses', { input: 'no model' }, bearer)).status, 400);
    const upgrade = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13' };
    const handshake = await gw.get('/v1/responses', {
      ...bearer,
      headers: { ...bearer.headers, ...upgrade },
    });
    assert.equal(handshake.status, 426);
    await gw.app.recorder.flush();
    const samples = parsePrometheusText((await gw.get('/metrics', { auth: false })).text);
    assert.equal(sumOf(samples, 'gateway_requests_total', { front_door: 'responses', status: '200' }), 1);
    assert.equal(sumOf(samples, 'gateway_requests_total', { front_door: 'responses', status: '400' }), 1);
    assert.equal(sumOf(samples, 'gateway_requests_total', { front_door: 'responses' }), 2);
  });
});
