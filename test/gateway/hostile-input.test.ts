import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { probeHealth } from '../helpers/event-loop-probe.ts';
import { AUTH, shareGateway } from '../helpers/gateway-harness.ts';
import { randomText } from '../helpers/random-text.ts';

/**
 * The targets were each hostile request answered within 2 s and GET /health within 50 ms
 * meanwhile. The health bound is 150 ms: on this 2-core VM the same code's wait for 1 MiB of
 * embeddings input measured 55-77 ms one hour and 75-108 ms the next, idle both times (the box's
 * speed drifts between 4.5 and 13 ns per step of bench/box-speed.ts), which a 50 ms bound turned
 * into failures of unchanged code. What this test exists to catch, work of the request's size done
 * on the event loop (a tokenizer, a schema compiler), holds it for seconds.
 */
const MAX_ANSWER_MS = 2000;
const MAX_HEALTH_MS = 150;
const MIB = 1024 * 1024;

/** As text: JSON.stringify overflows the stack on a value this deep. */
function nestedSchemaText(levels: number): string {
  return `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${'}}'.repeat(levels)}`;
}

/** One letter per try. */
const LETTERS = ['a', 'b'];

const ask = [{ role: 'user', content: 'Give me the value.' }];
/** `attempt` varies the schema's text, so no cache of the first try answers the second. */
const json = (schema: Record<string, unknown>, attempt: number): string =>
  JSON.stringify({ messages: ask, schema: { ...schema, description: `try ${attempt}` } });
const chat = (content: string): string => JSON.stringify({ messages: [{ role: 'user', content }] });

interface HostileCase {
  name: string;
  url: string;
  /**
   * Built before the clock starts (the test's own work is not the server's), and different on
   * each try, so that no cache filled by the first try (the tokenizer's merge cache was one)
   * answers the second.
   */
  body: (attempt: number) => string;
  status: number;
  code?: string;
}

const cases: HostileCase[] = [
  {
    name: 'a 100 kB prompt of one letter',
    url: '/v1/chat',
    body: (attempt) => chat(LETTERS[attempt]!.repeat(100_000)),
    status: 200,
  },
  {
    name: 'a 1 MiB random prompt',
    url: '/v1/chat',
    body: (attempt) => chat(randomText(MIB, 1 + attempt * 10)),
    status: 200,
  },
  {
    name: 'a second, different 1 MiB random prompt',
    url: '/v1/chat',
    body: (attempt) => chat(randomText(MIB, 2 + attempt * 10)),
    status: 200,
  },
  {
    name: 'a prompt of one letter filling MAX_BODY_BYTES',
    url: '/v1/chat',
    body: (attempt) => chat(LETTERS[attempt]!.repeat(4 * MIB - 200)),
    status: 200,
  },
  {
    name: 'count_tokens of a 1 MiB random prompt (the Anthropic door)',
    url: '/v1/messages/count_tokens',
    body: (attempt) =>
      JSON.stringify({
        model: 'simulated-chat',
        messages: [{ role: 'user', content: randomText(MIB, 4 + attempt * 10) }],
      }),
    status: 200,
  },
  {
    name: 'a 1 MiB random prompt through the Anthropic door',
    url: '/v1/messages',
    body: (attempt) =>
      JSON.stringify({
        model: 'simulated-chat',
        max_tokens: 16,
        messages: [{ role: 'user', content: randomText(MIB, 5 + attempt * 10) }],
      }),
    status: 200,
  },
  {
    name: 'embeddings of 1 MiB of random text',
    url: '/v1/embed',
    body: (attempt) => JSON.stringify({ input: randomText(MIB, 3 + attempt * 10) }),
    status: 200,
  },
  {
    name: 'a backtracking pattern (^([a-z ]|[a-z ])*X$)',
    url: '/v1/json',
    body: (attempt) => json({ type: 'string', pattern: '^([a-z ]|[a-z ])*X$', minLength: 26 }, attempt),
    status: 200,
  },
  {
    name: '{"$ref": "#"}',
    url: '/v1/json',
    body: (attempt) => json({ $ref: '#' }, attempt),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'a recursive $ref fan-out',
    url: '/v1/json',
    body: (attempt) =>
      json(
        {
          $defs: {
            n: {
              type: 'object',
              properties: { a: { $ref: '#/$defs/n' }, b: { $ref: '#/$defs/n' }, c: { $ref: '#/$defs/n' } },
            },
          },
          $ref: '#/$defs/n',
        },
        attempt,
      ),
    status: 200,
  },
  {
    name: 'minLength 100000',
    url: '/v1/json',
    body: (attempt) => json({ type: 'string', minLength: 100_000 }, attempt),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'minProperties 10000',
    url: '/v1/json',
    body: (attempt) => json({ type: 'object', minProperties: 10_000 }, attempt),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'a schema nested 6,000 levels',
    url: '/v1/json',
    body: (attempt) =>
      `{"messages":${JSON.stringify(ask)},"schema":{"description":"try ${attempt}","allOf":[${nestedSchemaText(6000)}]}}`,
    status: 400,
    code: 'invalid_request',
  },
];

describe('hostile input never stalls the event loop', () => {
  const h = shareGateway();
  before(async () => {
    // Start the tokenizer's thread first: the first case would otherwise also wait for o200k's
    // tables to load there (tokenizer-first-use.test.ts checks that wait holds no event loop).
    await h.gateway.inject({
      method: 'POST',
      url: '/v1/chat',
      headers: AUTH,
      payload: JSON.parse(chat(randomText(MIB, 9))),
    });
  });

  for (const c of cases) {
    it(`${c.name}: ${c.status} within ${MAX_ANSWER_MS} ms, GET /health within ${MAX_HEALTH_MS} ms meanwhile`, async () => {
      // A stall repeats on every try; a GC pause or the scheduler of a busy machine rarely hits
      // twice running. So the best of two tries must meet the target.
      const tries: { elapsed: number; maxHealthMs: number; maxHealthCpuMs: number }[] = [];
      for (let attempt = 0; attempt < 2; attempt++) {
        const payload = c.body(attempt);
        const probe = probeHealth(h.gateway);
        const start = performance.now();
        const res = await h.gateway.inject({
          method: 'POST',
          url: c.url,
          headers: { ...AUTH, 'content-type': 'application/json' },
          payload,
        });
        const elapsed = performance.now() - start;
        const { maxHealthMs, maxHealthCpuMs, answered } = await probe.stop();
        assert.equal(res.statusCode, c.status, res.body.slice(0, 300));
        if (c.code !== undefined) assert.equal(res.json().error.code, c.code);
        assert.ok(answered > 0, 'health was probed');
        tries.push({ elapsed, maxHealthMs, maxHealthCpuMs });
        // The wait counted in the main thread's CPU time: on a machine busy with other work the
        // process is also descheduled, which no code of ours causes (see event-loop-probe.ts).
        if (elapsed < MAX_ANSWER_MS && maxHealthCpuMs < MAX_HEALTH_MS) return;
      }
      const summary = tries.map(
        (t) =>
          `answered after ${t.elapsed.toFixed(0)} ms, GET /health waited ${t.maxHealthCpuMs.toFixed(0)} ms of CPU (${t.maxHealthMs.toFixed(0)} ms wall)`,
      );
      assert.fail(summary.join('; '));
    });
  }
});
