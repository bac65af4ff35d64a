import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shareGateway } from '../helpers/gateway-harness.ts';
import type { SseEvent } from '../helpers/parse-sse.ts';

/**
 * The simulated provider streams an answer in chunks of `chunkTokens` (4) tokens and cuts it at
 * `maxTokens`, and o200k spreads many characters over several tokens (most outside the Basic
 * Multilingual Plane, and some within it), so a chunk edge or the cut can fall inside a
 * character. A chunk that would end inside one takes the next tokens too; the cut drops the
 * character it falls in (its tokens before the cut are still counted, as a vendor counts them).
 */
interface MultiByteCase {
  name: string;
  reply: string;
  maxTokens?: number;
  content: string;
  tokensOut: number;
}

const RUNES = 'ᚠᛇᚻ᛫ᛒᛦᚦ'; // three tokens a rune
const FAMILY = '👨‍👩‍👧‍👦 family'; // emoji joined by ZWJ: two tokens an emoji, one a joiner
const FLAGS = '🇫🇷🇩🇪🇯🇵 flags'; // regional indicators, two tokens each
const MIXED = 'Ünïcödé 🙂 ✓ 𝔘𝔫𝔦 ok';

const cases: MultiByteCase[] = [
  { name: 'runes, whole', reply: RUNES, content: RUNES, tokensOut: 21 },
  { name: 'runes cut one token into the second', reply: RUNES, maxTokens: 4, content: 'ᚠ', tokensOut: 4 },
  { name: 'runes cut two tokens into the third', reply: RUNES, maxTokens: 8, content: 'ᚠᛇ', tokensOut: 8 },
  { name: 'a ZWJ family, whole', reply: FAMILY, content: FAMILY, tokensOut: 12 },
  {
    name: 'a ZWJ family cut inside its second emoji',
    reply: FAMILY,
    maxTokens: 4,
    content: '👨‍',
    tokensOut: 4,
  },
  { name: 'flags cut inside the first indicator', reply: FLAGS, maxTokens: 1, content: '', tokensOut: 1 },
  { name: 'flags cut inside the second indicator', reply: FLAGS, maxTokens: 3, content: '🇫', tokensOut: 3 },
  { name: 'emoji cut inside the second', reply: '🙂🎉👍 ok', maxTokens: 2, content: '🙂', tokensOut: 2 },
  {
    name: 'mixed scripts cut inside a Fraktur letter',
    reply: MIXED,
    maxTokens: 9,
    content: 'Ünïcödé 🙂 ✓ ',
    tokensOut: 9,
  },
  {
    name: 'CJK cut between tokens',
    reply: '日本語のテキストを少し',
    maxTokens: 5,
    content: '日本語のテキ',
    tokensOut: 5,
  },
];

const ask = (reply: string, maxTokens: number | undefined) => ({
  messages: [{ role: 'user', content: 'Say it.' }],
  metadata: { simulated: { reply } },
  ...(maxTokens === undefined ? {} : { maxTokens }),
});

const deltasOf = (events: SseEvent[]): string[] =>
  events.filter((e) => e.event === 'delta').map((e) => (e.data as { content: string }).content);

describe('simulated answers with characters of several tokens', () => {
  const gw = shareGateway();

  for (const c of cases) {
    it(`${c.name}: the same text and count, whole or streamed`, async () => {
      const plain = await gw.chat(ask(c.reply, c.maxTokens));
      assert.equal(plain.status, 200);
      assert.equal(plain.body.message.content, c.content);
      assert.equal(plain.body.usage.tokensOut, c.tokensOut);
      assert.equal(plain.body.finishReason, c.maxTokens === undefined ? 'stop' : 'length');

      const { events } = await gw.stream(ask(c.reply, c.maxTokens));
      const deltas = deltasOf(events);
      const done = events.at(-1)?.data as { message: { content: string }; usage: { tokensOut: number } };
      assert.equal(deltas.join(''), c.content);
      assert.equal(done.message.content, c.content);
      assert.equal(done.usage.tokensOut, c.tokensOut);
      for (const delta of deltas) {
        assert.ok(!delta.includes('\uFFFD'), `a chunk cut a character: ${JSON.stringify(deltas)}`);
      }
    });
  }

  it('a chunk edge inside a character moves past it: the runes in chunks of four tokens', async () => {
    const { events } = await gw.stream(ask(RUNES, undefined));
    // Tokens 1-6 (the edge after 4 is inside the second rune, after 5 too), 7-12, 13-18, 19-21.
    assert.deepEqual(deltasOf(events), ['ᚠᛇ', 'ᚻ᛫', 'ᛒᛦ', 'ᚦ']);
  });

  it("one answer's cut inside a character does not reach the next answer", async () => {
    // The cut ends one token into the second rune. The library decodes through one streaming
    // decoder for every call: that token's byte stayed in it and opened the next text decoded.
    assert.equal((await gw.chat(ask(RUNES, 4))).body.message.content, 'ᚠ');
    const { events } = await gw.stream(ask(FLAGS, undefined));
    assert.deepEqual(deltasOf(events), ['🇫🇷', '🇩🇪', '🇯🇵', ' flags']);
  });
});
