import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { buildApplication } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { APP, AUTH, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { type MockOpenAIServer, openAIErrorFixture, startMockOpenAI } from '../helpers/mock-openai-server.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.ts';

const PROMPT = 'a prompt that must never reach a span';
const messages = [{ role: 'user', content: PROMPT }];
const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;
const INCOMING_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const INCOMING_SPAN = '00f067aa0ba902b7';

for (const protocol of ['http/protobuf', 'http/json'] as const) {
  describe(`traces over OTLP/HTTP (${protocol})`, () => {
    let receiver: OtlpReceiver;
    let mock: MockOpenAIServer;
    before(async () => {
      receiver = await startOtlpReceiver();
      mock = await startMockOpenAI({ apiKey: 'mock-key' });
    });
    const gw = shareGateway(() => ({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_SERVICE_NAME: 'gateway-under-test',
        PROVIDER_A_KIND: 'openai',
        PROVIDER_A_BASE_URL: mock.baseUrl,
        PROVIDER_A_API_KEY: 'mock-key',
      },
      file: { prices: { 'gpt-4o-mini-2024-07-18': { inputPerMTok: 1, outputPerMTok: 2 } } },
    }));
    after(async () => {
      await mock.close();
      await receiver.close();
    });

    /** The spans of the trace whose request span has this gateway request id. */
    async function traceOf(requestId: string): Promise<{ request: ReceivedSpan; children: ReceivedSpan[] }> {
      await gw.app.tracing?.flush();
      const request = receiver.spans.find((s) => s.attributes['gateway.request_id'] === requestId);
      assert.ok(request, `a span for ${requestId}`);
      const children = receiver.spans.filter((s) => s.parentSpanId === request.spanId);
      return { request, children };
    }

    it('continues an incoming traceparent: a request span, a child per upstream call, traceparent sent upstream', async () => {
      const res = await gw.chat(
        { messages, provider: 'provider-a' },
        { headers: { traceparent: `00-${INCOMING_TRACE}-${INCOMING_SPAN}-01` } },
      );
      assert.equal(res.status, 200, res.text);
      const { request, children } = await traceOf(String(res.headers['x-request-id']));
      assert.ok(
        String(receiver.contentTypes.at(-1)).startsWith(
          protocol === 'http/json' ? 'application/json' : 'application/x-protobuf',
        ),
      );
      assert.equal(request.traceId, INCOMING_TRACE);
      assert.equal(request.parentSpanId, INCOMING_SPAN);
      assert.equal(request.kind, SERVER);
      assert.equal(request.name, 'POST /v1/chat');
      assert.equal(request.resource['service.name'], 'gateway-under-test');
      assert.equal(request.attributes['http.response.status_code'], 200);
      assert.equal(request.attributes['gen_ai.operation.name'], 'chat');
      assert.equal(request.attributes['gen_ai.provider.name'], 'openai');
      assert.equal(request.attributes['gen_ai.request.model'], 'gpt-4o-mini');
      assert.equal(request.attributes['gen_ai.response.model'], res.body.model);
      assert.equal(request.attributes['gen_ai.usage.input_tokens'], res.body.usage.tokensIn);
      assert.equal(request.attributes['gen_ai.usage.output_tokens'], res.body.usage.tokensOut);
      // The recorded answer read 1024 of its prompt tokens from OpenAI's cache and wrote none.
      assert.equal(res.body.usage.tokensInCacheRead, 1024);
      assert.equal(request.attributes['gen_ai.usage.cache_read.input_tokens'], 1024);
      assert.equal(request.attributes['gen_ai.usage.cache_creation.input_tokens'], 0);
      assert.equal(request.attributes['gateway.provider.slot'], 'provider-a');
      assert.equal(request.attributes['gateway.app'], APP);
      assert.equal(request.attributes['gateway.front_door'], 'native');
      assert.equal(request.attributes['gateway.cost_usd'], res.body.usage.estimatedCost);
      assert.deepEqual(request.attributes['gen_ai.response.finish_reasons'], ['stop']);
      assert.equal(request.status.code, 0);

      assert.equal(children.length, 1);
      const call = children[0] as ReceivedSpan;
      assert.equal(call.traceId, INCOMING_TRACE);
      assert.equal(call.kind, CLIENT);
      assert.equal(call.name, 'chat gpt-4o-mini');
      assert.equal(call.attributes['gen_ai.provider.name'], 'openai');
      assert.equal(call.attributes['gen_ai.response.model'], res.body.model);
      assert.equal(call.attributes['gen_ai.usage.input_tokens'], res.body.usage.tokensIn);
      assert.equal(call.attributes['gen_ai.usage.cache_read.input_tokens'], 1024);
      assert.equal(
        call.attributes['gen_ai.usage.cache_creation.input_tokens'],
        undefined,
        'OpenAI reports no cache writes: the call says nothing of them',
      );
      assert.deepEqual(call.attributes['gen_ai.response.finish_reasons'], ['stop']);
      assert.equal(mock.requests.at(-1)?.headers.traceparent, `00-${INCOMING_TRACE}-${call.spanId}-01`);
      assert.doesNotMatch(JSON.stringify(receiver.spans), new RegExp(PROMPT));
    });

    it('shows each attempt of a retried request, the failed one in error', async () => {
      mock.failNext(1, openAIErrorFixture('error-500-server-error.json'));
      const res = await gw.chat({ messages, provider: 'provider-a' });
      assert.equal(res.status, 200, res.text);
      const { request, children } = await traceOf(String(res.headers['x-request-id']));
      assert.notEqual(request.traceId, INCOMING_TRACE, 'a new trace without a traceparent');
      assert.equal(request.parentSpanId, '');
      assert.deepEqual(
        children.map((c) => [
          c.attributes['gateway.attempt'],
          c.status.code,
          c.attributes['error.type'] ?? '',
        ]),
        [
          [0, ERROR, '500'],
          [1, 0, ''],
        ],
      );
      const [first, second] = mock.requests.slice(-2).map((r) => String(r.headers.traceparent).split('-')[2]);
      assert.deepEqual(
        [first, second],
        children.map((c) => c.spanId),
      );
    });

    it('sets the error status on a request that fails', async () => {
      mock.failNext(3, openAIErrorFixture('error-500-server-error.json'));
      const res = await gw.chat({ messages, provider: 'provider-a' });
      assert.equal(res.status, 502);
      const { request, children } = await traceOf(String(res.headers['x-request-id']));
      assert.equal(request.status.code, ERROR);
      assert.equal(request.attributes['error.type'], 'upstream_error');
      assert.equal(request.attributes['http.response.status_code'], 502);
      assert.equal(children.length, 3);
      assert.ok(children.every((c) => c.status.code === ERROR));
    });

    it('traces a streamed chat: the call span ends with the stream, carrying its usage', async () => {
      const res = await gw.stream({ messages, provider: 'provider-a' });
      const done = res.events.at(-1);
      assert.ok(done !== undefined && done.event === 'done');
      const usage = (done.data as { usage: { tokensIn: number; tokensOut: number } }).usage;
      const { request, children } = await traceOf(String(res.headers['x-request-id']));
      assert.equal(request.attributes['gateway.operation'], 'chat_stream');
      assert.equal(request.attributes['gen_ai.usage.output_tokens'], usage.tokensOut);
      assert.equal(children.length, 1);
      assert.equal(children[0]?.attributes['gen_ai.usage.output_tokens'], usage.tokensOut);
      assert.equal(children[0]?.status.code, 0);
      assert.deepEqual(request.attributes['gen_ai.response.finish_reasons'], ['stop']);
    });

    it('traces refusals too, without GenAI attributes for what never ran', async () => {
      const res = await gw.chat({ messages }, { headers: { 'x-gateway-secret': 'wrong-secret-0123456789' } });
      assert.equal(res.status, 401);
      const { request, children } = await traceOf(String(res.headers['x-request-id']));
      assert.equal(request.attributes['http.response.status_code'], 401);
      assert.equal(request.attributes['gen_ai.operation.name'], undefined);
      assert.equal(request.status.code, 0);
      assert.equal(children.length, 0);
    });
  });
}

describe('log lines with tracing on', () => {
  it('carry the trace id and span id of the request span', async (t) => {
    const receiver = await startOtlpReceiver();
    t.after(() => receiver.close());
    const config = loadConfig(
      {
        DATA_DIR: ':memory:',
        SURFACES: 'gateway',
        GATEWAY_APPS: `${APP}:${SECRET}`,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        LOG_LEVEL: 'info',
      },
      [],
    );
    const output = new PassThrough();
    let logged = '';
    output.on('data', (chunk: Buffer) => {
      logged += chunk.toString('utf8');
    });
    const app = await buildApplication(config, createLogger({ level: 'info', destination: output }));
    t.after(() => app.close());
    const gateway = app.gateway;
    assert.ok(gateway);
    const res = await gateway.inject({
      method: 'POST',
      url: '/v1/chat',
      headers: AUTH,
      payload: { messages },
    });
    assert.equal(res.statusCode, 200, res.body);
    await app.tracing?.flush();
    const span = receiver.spans.find(
      (s) => s.attributes['gateway.request_id'] === res.headers['x-request-id'],
    );
    assert.ok(span);
    const lines = logged
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((line) => line.reqId === res.headers['x-request-id'] && line.trace_id !== undefined);
    assert.ok(lines.length > 0, logged);
    assert.ok(lines.every((line) => line.trace_id === span.traceId && line.span_id === span.spanId));
  });
});

describe('without an OTLP endpoint', () => {
  const gw = shareGateway();
  it('loads no tracing and sends no traceparent', async () => {
    assert.equal(gw.app.tracing, undefined);
    assert.equal((await gw.chat({ messages })).status, 200);
  });
});
