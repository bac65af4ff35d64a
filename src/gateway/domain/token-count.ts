import type { ChatMessage, ToolCall, ToolDefinition } from './messages.ts';
import { sliceForTokenizer } from './tokenizer-slices.ts';

/**
 * Token counting that answers in bounded time and keeps the event loop free for any input up to
 * MAX_BODY_BYTES:
 * - text is fed to the tokenizer in bounded slices (see tokenizer-slices.ts), so no single
 *   library call is quadratic in the input;
 * - the work yields to other requests every YIELD_EVERY_CHARS characters;
 * - up to EXACT_COUNT_CHARS characters per call are counted exactly; past that, evenly spaced
 *   slices adding up to about EXACT_COUNT_CHARS are counted and the total is scaled from them.
 */
export interface Tokenizer {
  /** Tokens of each text counted separately, summed. */
  count(texts: string | readonly string[]): Promise<number>;
  /** Exact tokens of one text (simulated answers only; they stream and truncate by token). */
  encode(text: string): Promise<number[]>;
  /**
   * Text of whole tokens, as a one-shot decoder gives it: the first bytes of a character the
   * tokens end inside decode as U+FFFD, and nothing is carried over to the next call.
   */
  decode(tokens: readonly number[]): string;
}

/**
 * Characters counted exactly in one call. The slowest text for gpt-tokenizer (random CJK, one
 * repeated letter) tokenizes at about 1-2 MB/s on this project's 2-core reference box, so this
 * bounds a count to a few hundred milliseconds; ordinary prose of this size takes ~15 ms.
 */
export const EXACT_COUNT_CHARS = 256 * 1024;

/** Characters tokenized between two yields: a few milliseconds of work at worst. */
const YIELD_EVERY_CHARS = 8 * 1024;

/** Slicing a character costs about this many times less than tokenizing it. */
const SCAN_COST_RATIO = 16;

interface Encoding {
  encode(text: string): number[];
  decode(tokens: number[]): string;
  countTokens(text: string): number;
  setMergeCacheSize(size: number): void;
}

let loading: Promise<Tokenizer> | undefined;

/**
 * The o200k_base tokenizer (GPT-4o family), loaded on first use: it costs ~70 MB, which a
 * gateway bound only to upstreams that report usage never needs to pay.
 */
export function loadTokenizer(): Promise<Tokenizer> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then((module) => {
    const encoding = module as unknown as Encoding;
    // The library's merge cache (100,000 entries, evicted oldest first from a Map) grows by
    // hundreds of MB on random text, and once full every insert scans the Map's deleted
    // entries: after one 1 MB random prompt the next took over 15 s. Slices keep each merge
    // short, so merging afresh costs less than that cache.
    encoding.setMergeCacheSize(0);
    return buildTokenizer(encoding);
  });
  return loading;
}

function buildTokenizer(encoding: Encoding): Tokenizer {
  return {
    count: (texts) => countSampled(encoding, typeof texts === 'string' ? [texts] : texts),
    encode: async (text) => {
      const tokens: number[] = [];
      const pacer = new Pacer();
      for (const slice of sliceForTokenizer(text)) {
        for (const token of encoding.encode(slice.text)) tokens.push(token);
        await pacer.after(slice.text.length);
      }
      return tokens;
    },
    decode: (tokens) => decodeWhole(encoding, tokens as number[]),
  };
}

/**
 * o200k_base's token for the single byte 0xFF, which begins no UTF-8 character (the byte-level
 * BPE has a token for each of the 256 bytes; o200k orders them as GPT-2 does).
 */
const LONE_FF_TOKEN = 187;

/**
 * The library decodes through one TextDecoder shared by every call, in streaming mode: the bytes
 * of a character that one call's tokens end inside are held back, and come out at the start of
 * the next call, whoever makes it (another answer then began with U+FFFD). Decoding the lone
 * byte 0xFF after each call flushes them: held bytes come out as one U+FFFD before the byte's
 * own. The call's text then ends as a one-shot decoder's would, and the next call starts clean.
 */
function decodeWhole(encoding: Encoding, tokens: number[]): string {
  const text = encoding.decode(tokens);
  const flushed = encoding.decode([LONE_FF_TOKEN]);
  return flushed.length > 1 ? `${text}\uFFFD` : text;
}

async function countSampled(encoding: Encoding, texts: readonly string[]): Promise<number> {
  const totalChars = texts.reduce((sum, text) => sum + text.length, 0);
  // Count one slice in `stride`; with stride 1 every slice is counted and the result is exact.
  const stride = Math.max(1, Math.ceil(totalChars / EXACT_COUNT_CHARS));
  const pacer = new Pacer();
  let total = 0;
  for (const text of texts) {
    let tokens = 0;
    let countedChars = 0;
    let index = 0;
    for (const slice of sliceForTokenizer(text)) {
      if (index++ % stride !== 0) {
        // Skipping still scans the slice for boundaries: cheap per character, not on 4 MiB.
        await pacer.after(slice.text.length / SCAN_COST_RATIO);
        continue;
      }
      tokens += encoding.countTokens(slice.text);
      countedChars += slice.text.length;
      await pacer.after(slice.text.length);
    }
    total += stride === 1 || countedChars === 0 ? tokens : Math.round((tokens * text.length) / countedChars);
  }
  return total;
}

/** Yields to the event loop after each YIELD_EVERY_CHARS characters of tokenizing. */
class Pacer {
  #sinceYield = 0;

  async after(chars: number): Promise<void> {
    this.#sinceYield += chars;
    if (this.#sinceYield < YIELD_EVERY_CHARS) return;
    this.#sinceYield = 0;
    // setImmediate, not a microtask: pending I/O (other requests) runs before the next batch.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

// OpenAI's documented accounting for chat input: each message costs 3 tokens of framing,
// a name 1 more, and every reply is primed with 3. Tools have no published formula: their JSON
// text is counted, with a few tokens of framing per tool and per call, the same order as what
// vendors report for them.
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_NAME = 1;
const TOKENS_REPLY_PRIMER = 3;
const TOKENS_PER_TOOL = 8;
const TOKENS_PER_TOOL_CALL = 3;

/**
 * Input tokens of a chat: the messages, with the tool calls and results they carry, and the
 * tool definitions. One count over all the texts, so the bounds above hold for the whole request.
 */
export async function countChatInputTokens(
  tokenizer: Tokenizer,
  messages: readonly ChatMessage[],
  tools?: readonly ToolDefinition[],
): Promise<number> {
  let framing = TOKENS_REPLY_PRIMER;
  const texts: string[] = [];
  for (const message of messages) {
    framing += TOKENS_PER_MESSAGE;
    texts.push(message.role, message.content);
    if (message.name !== undefined) {
      framing += TOKENS_PER_NAME;
      texts.push(message.name);
    }
    if (message.toolCallId !== undefined) texts.push(message.toolCallId);
    if (message.toolCalls !== undefined) framing += pushToolCallTexts(message.toolCalls, texts);
  }
  if (tools !== undefined) {
    for (const tool of tools) {
      framing += TOKENS_PER_TOOL;
      texts.push(toolText(tool));
    }
  }
  return framing + (await tokenizer.count(texts));
}

/** Output tokens of an answer: its text and the tool calls it made. */
export async function countChatOutputTokens(
  tokenizer: Tokenizer,
  content: string,
  toolCalls?: readonly ToolCall[],
): Promise<number> {
  if (toolCalls === undefined || toolCalls.length === 0) return tokenizer.count(content);
  const texts = [content];
  const framing = pushToolCallTexts(toolCalls, texts);
  return framing + (await tokenizer.count(texts));
}

/** The texts a chat request's limit reservation is estimated from (characters, no tokenizer). */
export function chatInputTexts(
  messages: readonly ChatMessage[],
  tools?: readonly ToolDefinition[],
): string[] {
  const texts: string[] = [];
  for (const message of messages) {
    texts.push(message.content);
    if (message.toolCalls !== undefined) pushToolCallTexts(message.toolCalls, texts);
  }
  if (tools !== undefined) for (const tool of tools) texts.push(toolText(tool));
  return texts;
}

function pushToolCallTexts(calls: readonly ToolCall[], texts: string[]): number {
  for (const call of calls) texts.push(call.id, call.name, call.arguments);
  return calls.length * TOKENS_PER_TOOL_CALL;
}

/** A tool as the model reads it; its size is bounded where tools are validated. */
function toolText(tool: ToolDefinition): string {
  return `${tool.name}\n${tool.description ?? ''}\n${JSON.stringify(tool.parameters)}`;
}
