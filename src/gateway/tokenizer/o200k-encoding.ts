import o200k from 'gpt-tokenizer/encoding/o200k_base';
import type { Encoding } from '../domain/encoding-tokenizer.ts';

/**
 * o200k_base's token for the single byte 0xFF, which begins no UTF-8 character (the byte-level
 * BPE has a token for each of the 256 bytes; o200k orders them as GPT-2 does).
 */
const LONE_FF_TOKEN = 187;

/**
 * Text is text: "<|endoftext|>" in a prompt is counted as the characters it is, as a vendor's API
 * counts what a client sends. The library's default refuses it (it throws), which made a chat
 * that quoted one answer 500.
 */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * gpt-tokenizer's o200k_base (the GPT-4o family) as the counting algorithm needs it. Importing
 * this module builds the library's tables, about 110 ms of CPU and 40 MB of heap: the gateway
 * imports it on the tokenizer's thread only.
 */
export function o200kEncoding(): Encoding {
  // The library's merge cache (100,000 entries, evicted oldest first from a Map) grows by
  // hundreds of MB on random text, and once full every insert scans the Map's deleted
  // entries: after one 1 MB random prompt the next took over 15 s. Slices keep each merge
  // short, so merging afresh costs less than that cache.
  o200k.setMergeCacheSize(0);
  return {
    encode: (text) => o200k.encode(text, AS_TEXT),
    countTokens: (text) => o200k.countTokens(text, AS_TEXT),
    decode: decodeWhole,
  };
}

/**
 * The library decodes through one TextDecoder shared by every call, in streaming mode: the bytes
 * of a character that one call's tokens end inside are held back, and come out at the start of
 * the next call, whoever makes it (another answer then began with U+FFFD). Decoding the lone
 * byte 0xFF after each call flushes them: held bytes come out as one U+FFFD before the byte's
 * own. The call's text then ends as a one-shot decoder's would, and the next call starts clean.
 */
function decodeWhole(tokens: readonly number[]): string {
  const text = o200k.decode(tokens);
  const flushed = o200k.decode([LONE_FF_TOKEN]);
  return flushed.length > 1 ? `${text}\uFFFD` : text;
}
