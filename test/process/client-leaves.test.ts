import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { UsageRecord } from '../../src/storage/ports.ts';
import { writeConfigFile } from '../helpers/gateway-harness.ts';
import { type LeaveAt, sendAndLeave } from '../helpers/leaving-client.ts';
import { exchange, type ListeningApp, listenBoth } from '../helpers/raw-http.ts';

/**
 * CONTRACT 5.1: a request that passed authentication and validation leaves exactly one ledger
 * row, 499 `client_closed` when its client left, and releases every limit reservation, at every
 * moment of the request and on every door. Real sockets (inject cannot leave): each client sends
 * its whole body, then destroys its socket at once (its 1 MiB body still on the JSON thread), while
 * the prompt's tokens are counted (a 1 MiB prompt
 * on a simulated slot, 30 ms after the body was sent), while the upstream has not answered (a slot
 * that answers after 400 ms) or mid-stream (a slot with 80 ms between chunks, after the first
 * delta was read). Each case has its own app with a concurrency limit of 1: the request after the
 * leavers is admitted only if each of them gave its slot back.
 */

const REPEATS = 4;
const SECRET = 'leaving-secret-0123456789';
/**
 * 1 MiB of words that do not repeat (a fixed pseudo-random sequence): counting them takes the
 * tokenizer long past the 30 ms at which the client leaves. A repeated sentence did not: the
 * tokenizer's cache of pieces counted it in less once warm, and on a quiet machine some requests
 * were answered (200) before the client left.
 */
const PROMPT_1MIB = (() => {
  let seed = 0x2545f491;
  const random = () => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed / 2 ** 32;
  };
  const words: string[] = [];
  let length = 0;
  while (length < 2 ** 20) {
    const size = 2 + Math.floor(random() * 8);
    let word = '';
    for (let i = 0; i < size; i++) word += String.fromCharCode(97 + Math.floor(random() * 26));
    words.push(word);
    length += size + 1;
  }
  return words.join(' ').slice(0, 2 ** 20);
})();

type Door = 'native' | 'openai' | 'anthropic' | 'responses';
type Moment = 'parsing' | 'counting' | 'waiting' | 'mid-stream';

/** The slot each moment's requests go to, and when their client leaves. */
const MOMENTS: Record<Moment, { slot: string; prompt: string; leave: Record<Door, LeaveAt> }> = {
  // At once: the 1 MiB body is still being parsed on the JSON thread (decision 0023), so the
  // socket closes before the request's handler has run; the run must still see that it left.
  parsing: {
    slot: 'provider-b',
    prompt: PROMPT_1MIB,
    leave: {
      native: { afterSentMs: 0 },
      openai: { afterSentMs: 0 },
      anthropic: { afterSentMs: 0 },
      responses: { afterSentMs: 0 },
    },
  },
  counting: {
    slot: 'provider-a',
    prompt: PROMPT_1MIB,
    leave: {
      native: { afterSentMs: 30 },
      openai: { afterSentMs: 30 },
      anthropic: { afterSentMs: 30 },
      responses: { afterSentMs: 30 },
    },
  },
  waiting: {
    slot: 'provider-b',
    prompt: 'answer me later',
    leave: {
      native: { afterSentMs: 100 },
      openai: { afterSentMs: 100 },
      anthropic: { afterSentMs: 100 },
      responses: { afterSentMs: 100 },
    },
  },
  'mid-stream': {
    slot: 'provider-c',
    prompt: 'tell me a long story',
    leave: {
      native: { afterReading: /event: delta/ },
      openai: { afterReading: /"delta":\{"content":"[^"]/ },
      anthropic: { afterReading: /text_delta/ },
      responses: { afterReading: /response\.output_text\.delta/ },
    },
  },
};

const PATHS: Record<Door, string> = {
  native: '/v1/chat',
  openai: '/v1/chat/completions',
  anthropic: '/v1/messages',
  responses: '/v1/responses',
};

function bodyFor(door: Door, slot: string, prompt: string, stream: boolean): string {
  const messages = [{ role: 'user', content: prompt }];
  if (door === 'native') return JSON.stringify({ messages, provider: slot, stream });
  if (door === 'openai') return JSON.stringify({ model: `${slot}/simulated-chat`, messages, stream });
  if (door === 'responses') return JSON.stringify({ model: `${slot}/simulated-chat`, input: prompt, stream });
  return JSON.stringify({ model: `${slot}/simulated-chat`, max_tokens: 200, messages, stream });
}

interface Case {
  door: Door;
  moment: Moment;
  stream: boolean;
  app: string;
}

const CASES: Case[] = [];
for (const door of ['native', 'openai', 'anthropic', 'responses'] as const) {
  for (const moment of ['parsing', 'counting', 'waiting', 'mid-stream'] as const) {
    for (const stream of moment === 'mid-stream' ? [true] : [true, false]) {
      CASES.push({ door, moment, stream, app: `leave-${door}-${moment}-${stream ? 'stream' : 'plain'}` });
    }
  }
}

describe('a client that leaves: one ledger row, 499, its limits released (CONTRACT 5.1)', () => {
  let server: ListeningApp;
  before(async () => {
    const file = writeConfigFile({
      providers: {
        'provider-a': { kind: 'simulated' },
        'provider-b': { kind: 'simulated', simulated: { latencyMs: 400 } },
        'provider-c': { kind: 'simulated', simulated: { chunkDelayMs: 80, chunkTokens: 2 } },
      },
      limits: { apps: Object.fromEntries(CASES.map((c) => [c.app, { concurrentRequests: 1 }])) },
    });
    server = await listenBoth({
      CONFIG_FILE: file,
      GATEWAY_APPS: CASES.map((c) => `${c.app}:${SECRET}`).join(','),
    });
  });
  after(() => server.close());

  /** The ledger's rows for these request ids, once every one is there or `waitMs` passed. */
  async function rowsOf(requestIds: readonly string[], waitMs: number): Promise<UsageRecord[]> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      await server.app.recorder.flush();
      const rows = (await server.app.storage.usage.readRecords({ limit: 10_000 })).filter((row) =>
        requestIds.includes(row.requestId),
      );
      if (rows.length >= requestIds.length || Date.now() > deadline) return rows;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** A whole request of the case's app on its door, read to the end: its status. */
  async function completeRequest(c: Case): Promise<{ status: number; body: string }> {
    const body = bodyFor(c.door, 'provider-a', 'hello', false);
    const answer = await exchange(
      server.gatewayPort,
      `POST ${PATHS[c.door]} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n` +
        `x-gateway-app: ${c.app}\r\nx-gateway-secret: ${SECRET}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    return { status: answer.status, body: answer.body };
  }

  for (const c of CASES) {
    it(`${c.door} door, ${c.stream ? 'streamed' : 'not streamed'}, leaving ${c.moment}`, async () => {
      // First a whole request: the app's credentials are checked once (scrypt), which a client
      // leaving during that check would interrupt before its body is read, and so before the request
      // exists (CONTRACT 5.9); and its one concurrency slot is free to begin with.
      assert.equal((await completeRequest(c)).status, 200);
      const { slot, prompt, leave } = MOMENTS[c.moment];
      const headers = { 'x-gateway-app': c.app, 'x-gateway-secret': SECRET };
      const body = bodyFor(c.door, slot, prompt, c.stream);
      const ids: string[] = [];
      for (let i = 0; i < REPEATS; i++) {
        const requestId = `${c.app}-${i}`;
        ids.push(requestId);
        const left = await sendAndLeave(
          server.gatewayPort,
          { path: PATHS[c.door], headers: { ...headers, 'x-request-id': requestId }, body },
          leave[c.door],
        );
        assert.ok(left.left, `the client left before the answer (it read: ${left.received.slice(0, 300)})`);
        // The next request waits for this one's row, so that it does not meet the run still holding the slot.
        await rowsOf([requestId], 3_000);
      }
      const rows = await rowsOf(ids, 1_000);
      const summary = `${rows.length} rows for ${REPEATS} requests: ${JSON.stringify(rows.map((r) => [r.requestId, r.status, r.errorCode]))}`;
      for (const id of ids) {
        const mine = rows.filter((row) => row.requestId === id);
        assert.equal(mine.length, 1, `one row for ${id}; ${summary}`);
        assert.equal(mine[0]?.status, 499, summary);
        assert.equal(mine[0]?.errorCode, 'client_closed', summary);
        assert.equal(mine[0]?.app, c.app);
        // Whatever reached an upstream is on the books: at least the prompt (CONTRACT 5.1).
        if ((mine[0]?.attempts.length ?? 0) > 0) assert.ok((mine[0]?.tokensIn ?? 0) > 0, summary);
        // Mid-stream, the client read a delta: the answer so far is counted.
        if (c.moment === 'mid-stream') assert.ok((mine[0]?.tokensOut ?? 0) > 0, summary);
      }
      // Every slot given back: a whole request of the same app is admitted and answered.
      const next = await completeRequest(c);
      assert.equal(next.status, 200, `the next request is admitted (${next.body.slice(0, 200)}); ${summary}`);
    });
  }
});
