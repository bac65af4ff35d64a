import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { UsageRecord } from '../../src/storage/ports.ts';
import { writeConfigFile } from '../helpers/gateway-harness.ts';
import { sendAndLeave } from '../helpers/leaving-client.ts';
import { type MockAnthropicServer, startMockAnthropic } from '../helpers/mock-anthropic-server.ts';
import { exchange, type ListeningApp, listenBoth } from '../helpers/raw-http.ts';

/**
 * CONTRACT 5.1 on the Anthropic door's same-vendor lane: a client that leaves a relayed stream,
 * while the upstream has not sent its first event or after it read a text delta, leaves one ledger
 * row, 499 `client_closed`, with what the upstream reported (message_start's counts) or the
 * prompt's guess, and gives back its concurrency slot (the app's limit is 1).
 */

const APP = 'relay-leaver';
const SECRET = 'relay-leaver-secret-0123456789';
const HEADERS = { 'x-gateway-app': APP, 'x-gateway-secret': SECRET, 'anthropic-version': '2023-06-01' };

function body(stream: boolean): string {
  return JSON.stringify({
    model: 'claude-sonnet-4-5',
    max_tokens: 200,
    stream,
    system: [{ type: 'text', text: 'Be long.', cache_control: { type: 'ephemeral' } }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Tell me a long story.' }] }],
  });
}

describe('a client that leaves a relayed stream: one row, 499, its slot given back', () => {
  let mock: MockAnthropicServer;
  let server: ListeningApp;
  before(async () => {
    mock = await startMockAnthropic({ eventDelayMs: 0 });
    const file = writeConfigFile({
      providers: { 'provider-a': { kind: 'anthropic', baseUrl: mock.origin, apiKey: 'sk-ant' } },
      limits: { apps: { [APP]: { concurrentRequests: 1 } } },
    });
    server = await listenBoth({ CONFIG_FILE: file, GATEWAY_APPS: `${APP}:${SECRET}` });
  });
  after(async () => {
    await server.close();
    await mock.close();
  });

  async function rowOf(requestId: string): Promise<UsageRecord[]> {
    const deadline = Date.now() + 3_000;
    for (;;) {
      await server.app.recorder.flush();
      const rows = (await server.app.storage.usage.readRecords({ limit: 1000 })).filter(
        (row) => row.requestId === requestId,
      );
      if (rows.length > 0 || Date.now() > deadline) return rows;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async function wholeRequest(): Promise<number> {
    const text = body(false);
    const answer = await exchange(
      server.gatewayPort,
      `POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n` +
        `x-gateway-app: ${APP}\r\nx-gateway-secret: ${SECRET}\r\nanthropic-version: 2023-06-01\r\n` +
        `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
    );
    return answer.status;
  }

  for (const moment of ['before the first event', 'after a text delta'] as const) {
    it(`leaving ${moment}`, async () => {
      assert.equal(await wholeRequest(), 200);
      const requestId = `relay-leave-${moment.replaceAll(' ', '-')}`;
      mock.replyNext({ text: 'Once upon a time there was a gateway that relayed every byte.' });
      mock.stallNextStream(moment === 'before the first event' ? 0 : 3);
      const left = await sendAndLeave(
        server.gatewayPort,
        { path: '/v1/messages', headers: { ...HEADERS, 'x-request-id': requestId }, body: body(true) },
        moment === 'before the first event' ? { afterSentMs: 150 } : { afterReading: /text_delta/ },
      );
      assert.ok(left.left, `the client left before the answer (it read: ${left.received.slice(0, 300)})`);
      const rows = await rowOf(requestId);
      assert.equal(rows.length, 1, JSON.stringify(rows));
      const row = rows[0] as UsageRecord;
      assert.deepEqual([row.status, row.errorCode, row.frontDoor], [499, 'client_closed', 'anthropic']);
      assert.ok(row.tokensIn > 0, 'the prompt is on the books');
      if (moment === 'after a text delta') {
        // message_start's counts, as the upstream reported them: not an estimate.
        assert.equal(row.usageEstimated, false);
        assert.ok(row.tokensOut > 0);
      }
      assert.equal(await wholeRequest(), 200, 'the next request is admitted: the slot was given back');
    });
  }
});
