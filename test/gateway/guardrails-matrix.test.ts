import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  builtInDetector,
  PERSONAL_DATA_TYPES,
  SECRET_TYPES,
} from '../../src/gateway/guardrails/built-in-detectors.ts';
import { LOOK_ALIKES, MATCHES } from '../../src/gateway/guardrails/detectors.test.ts';
import type { Finding } from '../../src/gateway/guardrails/finding.ts';
import { postMessages } from '../helpers/anthropic-door-client.ts';
import { STRICT, shareGuardedGateway } from '../helpers/guarded-gateway.ts';

/**
 * Issue 42's done-when, as a matrix: every built-in detector's values (the detector tests' tables,
 * all thirteen types) in a prompt, an OpenAI `tool` message, an Anthropic `tool_result` (on the
 * same-vendor lane and translated), a Responses `function_call_output` and a Gemini
 * `functionResponse`, on every door, reach no upstream; each type's mask is there once per value;
 * the look-alikes that no built-in type reads arrive as written. The upstream's answer holding
 * them all, split across stream chunks, is masked on every door; a block on the Gemini door makes
 * no upstream call.
 */

const ALL_TYPES = [...SECRET_TYPES, ...PERSONAL_DATA_TYPES];
const everything = builtInDetector(ALL_TYPES);
const VALUES = ALL_TYPES.flatMap((type) => (MATCHES[type] ?? []).map((value) => ({ type, value })));
/** Look-alikes no built-in type reads (some are another type's match: a ZIP+4 is no phone, but...). */
const UNTOUCHED = ALL_TYPES.flatMap((type) => LOOK_ALIKES[type] ?? []).filter((value) => {
  const found: Finding[] = [];
  everything(`see ${value} here`, found);
  return found.length === 0;
});
/** What an agent read: every value and look-alike, each on a line of its own. */
const FILE = [
  ...VALUES.map(({ type, value }) => `${type.toLowerCase()} = ${value}`),
  ...UNTOUCHED.map((value) => `plain = ${value}`),
].join('\n');

/** Whether `needle` occurs in `text` as a whole token (a look-alike may hold a value inside a longer one). */
function holdsWhole(text: string, needle: string): boolean {
  const token = /[A-Za-z0-9_-]/;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    if (!token.test(text[at - 1] ?? ' ') && !token.test(text[at + needle.length] ?? ' ')) return true;
  }
  return false;
}

/**
 * A value as it may stand in an upstream body: as written, JSON-escaped once (a string field), or
 * twice (a Gemini functionResponse's object is a JSON string inside an OpenAI tool message).
 */
function forms(value: string): string[] {
  const once = JSON.stringify(value).slice(1, -1);
  return [...new Set([value, once, JSON.stringify(once).slice(1, -1)])];
}

function assertMasked(upstream: string, where: string): void {
  for (const { type, value } of VALUES)
    assert.ok(
      !forms(value).some((form) => holdsWhole(upstream, form)),
      `${where}: ${type} ${value.slice(0, 20)}… went upstream`,
    );
  for (const type of ALL_TYPES) {
    const masks = upstream.split(`[REDACTED:${type}]`).length - 1;
    assert.ok(masks >= (MATCHES[type] ?? []).length, `${where}: ${masks} masks of ${type}`);
  }
  for (const value of UNTOUCHED)
    assert.ok(
      forms(value).some((form) => upstream.includes(form)),
      `${where}: the look-alike ${value} was changed`,
    );
}

describe('guardrails matrix: every detector, every carrier, every door', () => {
  const shared = shareGuardedGateway();
  const gw = shared.gw;
  const lastRaw = (requests: readonly { raw: Buffer }[]) => requests.at(-1)?.raw.toString('utf8') ?? '';

  it('has look-alikes left to check and every type among the values', () => {
    assert.ok(UNTOUCHED.length >= 30, `${UNTOUCHED.length} look-alikes`);
    assert.deepEqual([...new Set(VALUES.map((item) => item.type))], ALL_TYPES);
  });

  const openAIInputs: [string, string, unknown][] = [
    ['native prompt', '/v1/chat', { provider: 'provider-a', messages: [{ role: 'user', content: FILE }] }],
    [
      'OpenAI tool message',
      '/v1/chat/completions',
      {
        model: 'provider-a/gpt-4o-mini',
        messages: [
          { role: 'user', content: 'Read .env' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: FILE },
        ],
      },
    ],
    [
      'Responses function_call_output',
      '/v1/responses',
      {
        model: 'provider-a/gpt-4o-mini',
        input: [
          { type: 'function_call', call_id: 'c1', name: 'read', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: FILE },
        ],
      },
    ],
    [
      'Gemini functionResponse, to an OpenAI slot',
      '/v1beta/models/provider-a/gpt-4o-mini:generateContent',
      {
        contents: [
          { role: 'user', parts: [{ text: 'Read .env' }] },
          { role: 'model', parts: [{ functionCall: { name: 'read', args: {} } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'read', response: { content: FILE } } }] },
        ],
      },
    ],
  ];
  for (const [carrier, path, body] of openAIInputs) {
    it(`input: ${carrier} reaches the upstream masked`, async () => {
      const reply = await gw.post(path, body);
      assert.equal(reply.status, 200, reply.text);
      assertMasked(lastRaw(shared.openai.requests), carrier);
    });
  }

  const anthropicToolResult = (model: string) =>
    JSON.stringify({
      model,
      max_tokens: 64,
      messages: [
        { role: 'user', content: 'Read .env' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: FILE }] },
      ],
    });

  it('input: an Anthropic tool_result on the same-vendor lane reaches the upstream masked', async () => {
    const reply = await postMessages(gw, anthropicToolResult('claude-sonnet-4-5'), '');
    assert.equal(reply.statusCode, 200, reply.body);
    assertMasked(lastRaw(shared.anthropic.requests), 'Anthropic lane');
  });

  it('input: an Anthropic tool_result translated for an OpenAI slot reaches it masked', async () => {
    const reply = await postMessages(gw, anthropicToolResult('provider-a/gpt-4o-mini'), '');
    assert.equal(reply.statusCode, 200, reply.body);
    assertMasked(lastRaw(shared.openai.requests), 'Anthropic door, translated');
  });

  it('input: a Gemini functionResponse on the gemini slot reaches it masked', async () => {
    const reply = await gw.post('/v1beta/models/provider-b/gemini-2.5-flash:generateContent', {
      contents: [
        { role: 'user', parts: [{ text: 'Read .env' }] },
        { role: 'model', parts: [{ functionCall: { name: 'read', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'read', response: { content: FILE } } }] },
      ],
    });
    assert.equal(reply.status, 200, reply.text);
    assertMasked(shared.gemini.requests.at(-1)?.text ?? '', 'Gemini lane');
  });

  it('input: a block on the Gemini door is its 400 and makes no upstream call', async () => {
    const before = shared.gemini.requests.length + shared.openai.requests.length;
    const reply = await gw.post(
      '/v1beta/models/provider-b/gemini-2.5-flash:generateContent',
      { contents: [{ role: 'user', parts: [{ text: FILE }] }] },
      { headers: STRICT },
    );
    assert.equal(reply.status, 400, reply.text);
    assert.match(reply.text, /guardrail_blocked/);
    assert.equal(shared.gemini.requests.length + shared.openai.requests.length, before);
    for (const { value } of VALUES) assert.ok(!reply.text.includes(value), 'no value in the error body');
  });

  // The upstream's answer holding every value, in chunks of 7 characters (every value split).
  const deltaText = (text: string, pick: (event: any) => string | undefined) =>
    text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => pick(JSON.parse(line.slice(6))) ?? '')
      .join('');
  const streams: [string, () => Promise<string>][] = [
    [
      'native',
      async () => {
        shared.openai.replyNext({ text: FILE, fragmentSize: 7 });
        const reply = await gw.stream({ provider: 'provider-a', messages: [{ role: 'user', content: 'x' }] });
        return reply.events
          .filter((event) => event.event === 'delta')
          .map((event) => (event.data as any).content)
          .join('');
      },
    ],
    [
      'OpenAI',
      async () => {
        shared.openai.replyNext({ text: FILE, fragmentSize: 7 });
        const reply = await gw.post('/v1/chat/completions', {
          model: 'provider-a/gpt-4o-mini',
          stream: true,
          messages: [{ role: 'user', content: 'x' }],
        });
        return deltaText(reply.text, (event) => event.choices?.[0]?.delta?.content);
      },
    ],
    [
      'Responses',
      async () => {
        shared.openai.replyNext({ text: FILE, fragmentSize: 7 });
        const reply = await gw.post('/v1/responses', {
          model: 'provider-a/gpt-4o-mini',
          stream: true,
          input: 'x',
        });
        return deltaText(reply.text, (event) =>
          event.type === 'response.output_text.delta' ? event.delta : undefined,
        );
      },
    ],
    [
      'Anthropic, same-vendor lane',
      async () => {
        shared.anthropic.replyNext({ text: FILE, fragmentSize: 7 });
        const reply = await postMessages(
          gw,
          '{"model":"claude-sonnet-4-5","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"x"}]}',
          '',
        );
        return deltaText(reply.body, (event) => event.delta?.text);
      },
    ],
    [
      'Gemini',
      async () => {
        shared.gemini.replyNext({ text: FILE, fragmentSize: 7 });
        const reply = await gw.post(
          '/v1beta/models/provider-b/gemini-2.5-flash:streamGenerateContent?alt=sse',
          {
            contents: [{ role: 'user', parts: [{ text: 'x' }] }],
          },
        );
        return deltaText(reply.text, (event) => event.candidates?.[0]?.content?.parts?.[0]?.text);
      },
    ],
  ];
  for (const [door, run] of streams) {
    it(`output: the ${door} door's stream, every value split across chunks, arrives masked`, async () => {
      const text = await run();
      assertMasked(text, `${door} stream`);
    });
  }
});
