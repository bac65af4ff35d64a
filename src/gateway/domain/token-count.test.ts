import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { measureLoopStall } from '../../../test/helpers/event-loop-probe.ts';
import { randomText } from '../../../test/helpers/random-text.ts';
import { o200kEncoding } from '../tokenizer/o200k-encoding.ts';
import { EXACT_COUNT_CHARS, encodingTokenizer } from './encoding-tokenizer.ts';
import { seededRandom } from './hash-seed.ts';
import { chatInputTexts, countChatInputTokens, countChatOutputTokens } from './token-count.ts';

const MIB = 1024 * 1024;
/**
 * The targets: a request is answered within 2 s, and other requests wait at most 50 ms;
 * the stall bound here is 150 ms, as in test/gateway/hostile-input.test.ts and for its reason (4 MiB
 * of one emoji measured 51 ms of main-thread CPU on an idle but slow hour of this VM, with no change
 * to the code; counting on the main thread, which this guards against, takes seconds).
 */
const MAX_STALL_MS = 150;
const MAX_ELAPSED_MS = 2000;

function prose(length: number, seed: number): string {
  const words = [
    'the',
    'gateway',
    'counts',
    'tokens',
    'of',
    'every',
    'request,',
    'and',
    'a',
    'careful',
    'reader.\n',
  ];
  const random = seededRandom(seed);
  const parts: string[] = [];
  for (let size = 0; size < length; ) {
    const word = words[Math.floor(random() * words.length)] as string;
    parts.push(word);
    size += word.length + 1;
  }
  return parts.join(' ').slice(0, length);
}

/** The algorithm in this process, as the tokenizer's thread runs it. */
const tokenizer = encodingTokenizer(o200kEncoding());

describe('token counting', () => {
  it('is exact up to EXACT_COUNT_CHARS, equal to the library counting the whole text', async () => {
    for (const text of [prose(EXACT_COUNT_CHARS - 10, 1), 'Hello, world!', '', '  spaced   out  ']) {
      assert.equal(await tokenizer.count(text), countTokens(text));
    }
  });

  it("counts a special token's text as text, never refusing it", async () => {
    const asText = { disallowedSpecial: new Set<string>() };
    for (const text of ['<|endoftext|>', 'a prompt quoting <|im_start|>system and <|im_end|>']) {
      assert.equal(await tokenizer.count(text), countTokens(text, asText));
      const answer = await tokenizer.tokenizeAnswer(text, { maxTokens: undefined, chunkTokens: 4 });
      assert.equal(answer.chunks?.join(''), text);
    }
  });

  it('estimates long prose within 1% of the exact count', async () => {
    const text = prose(2 * MIB, 2);
    const exact = countTokens(text);
    const estimate = await tokenizer.count(text);
    assert.ok(Math.abs(estimate - exact) / exact < 0.01, `${estimate} against ${exact}`);
  });

  const hostile: [string, () => string][] = [
    ['4 MiB of one letter', () => 'a'.repeat(4 * MIB)],
    ['4 MiB of one emoji', () => '🙂'.repeat(2 * MIB)],
    ['4 MiB of random text', () => randomText(4 * MIB, 3)],
    ['a second 1 MiB of random text', () => randomText(MIB, 4)],
  ];
  for (const [name, build] of hostile) {
    it(`counts ${name} within ${MAX_ELAPSED_MS} ms without blocking the event loop for ${MAX_STALL_MS} ms`, async () => {
      await tokenizer.count(randomText(MIB, 5)); // what filled the library's cache before
      const text = build();
      const { value, maxStallMs, maxStallCpuMs, elapsedMs } = await measureLoopStall(() =>
        tokenizer.count(text),
      );
      assert.ok(value > 0);
      assert.ok(elapsedMs < MAX_ELAPSED_MS, `took ${elapsedMs.toFixed(0)} ms`);
      // CPU time of the main thread, not wall time: see test/helpers/event-loop-probe.ts.
      assert.ok(
        maxStallCpuMs < MAX_STALL_MS,
        `event loop blocked for ${maxStallCpuMs.toFixed(0)} ms of CPU (${maxStallMs.toFixed(0)} ms wall)`,
      );
    });
  }

  it('adds the chat framing to the counts of every message part', async () => {
    const messages = [
      { role: 'system' as const, content: 'Be brief.' },
      { role: 'user' as const, content: 'Hello there', name: 'ann' },
    ];
    const parts = ['system', 'Be brief.', 'user', 'Hello there', 'ann'].map((text) => countTokens(text));
    const expected = 3 + 2 * 3 + 1 + parts.reduce((sum, n) => sum + n, 0);
    assert.equal(await countChatInputTokens(tokenizer, messages), expected);
  });

  it('counts tool definitions, the calls an assistant made, and tool results', async () => {
    const call = { id: 'call_1', name: 'get_weather', arguments: '{"city":"Lyon","unit":"celsius"}' };
    const tool = {
      name: 'get_weather',
      description: 'The weather in a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    };
    const ask = { role: 'user' as const, content: 'Weather in Lyon?' };
    const plain = await countChatInputTokens(tokenizer, [ask]);
    const toolText = `get_weather\nThe weather in a city\n${JSON.stringify(tool.parameters)}`;
    assert.equal(await countChatInputTokens(tokenizer, [ask], [tool]), plain + 8 + countTokens(toolText));
    const loop = [
      ask,
      { role: 'assistant' as const, content: '', toolCalls: [call] },
      { role: 'tool' as const, content: '21 degrees', toolCallId: 'call_1' },
    ];
    const callTokens = 3 + ['call_1', 'get_weather', call.arguments].reduce((n, t) => n + countTokens(t), 0);
    const expected =
      plain + 2 * 3 + ['assistant', 'tool', '21 degrees', 'call_1'].reduce((n, t) => n + countTokens(t), 0);
    assert.equal(await countChatInputTokens(tokenizer, loop), expected + callTokens);
    assert.equal(await countChatOutputTokens(tokenizer, '', [call]), callTokens);
    assert.equal(await countChatOutputTokens(tokenizer, 'Hello'), countTokens('Hello'));
    // The limit reservation's characters include the tools and the call arguments.
    const chars = (texts: string[]) => texts.reduce((n, t) => n + t.length, 0);
    assert.equal(chars(chatInputTexts(loop, [tool])) - chars(chatInputTexts(loop)), toolText.length);
    assert.ok(chars(chatInputTexts(loop)) > chars(chatInputTexts([ask])) + call.arguments.length);
  });

  it('counts a long tool call id (a carrier of the gateway, such as a signed Gemini id) as its first 40 characters', async () => {
    const shortId = 'gsig1_0123456789abcdefghijklmnopqrstuvwxyz';
    const longId = `${shortId}${'A'.repeat(5_000)}`;
    const loop = (id: string) => [
      { role: 'user' as const, content: 'Weather in Lyon?' },
      { role: 'assistant' as const, content: '', toolCalls: [{ id, name: 'get_weather', arguments: '{}' }] },
      { role: 'tool' as const, content: '21 degrees', toolCallId: id },
    ];
    const cut = shortId.slice(0, 40);
    assert.equal(
      await countChatInputTokens(tokenizer, loop(longId)),
      await countChatInputTokens(tokenizer, loop(cut)),
    );
    const chars = (texts: string[]) => texts.reduce((n, t) => n + t.length, 0);
    assert.equal(chars(chatInputTexts(loop(longId))), chars(chatInputTexts(loop(cut))));
    const call = [{ id: longId, name: 'get_weather', arguments: '{}' }];
    assert.equal(
      await countChatOutputTokens(tokenizer, '', call),
      await countChatOutputTokens(tokenizer, '', [{ ...call[0], id: cut }] as typeof call),
    );
  });
});
