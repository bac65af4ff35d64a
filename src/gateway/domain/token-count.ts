import type { ChatMessage } from '../providers/provider.ts';

export interface Tokenizer {
  encode(text: string): number[];
  decode(tokens: readonly number[]): string;
  count(text: string): number;
}

let loading: Promise<Tokenizer> | undefined;

/**
 * The o200k_base tokenizer (GPT-4o family), loaded on first use: it costs ~70 MB, which a
 * gateway bound only to upstreams that report usage never needs to pay.
 */
export function loadTokenizer(): Promise<Tokenizer> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then((module) => ({
    encode: (text: string) => module.encode(text),
    decode: (tokens: readonly number[]) => module.decode(tokens as number[]),
    count: (text: string) => module.countTokens(text),
  }));
  return loading;
}

// OpenAI's documented accounting for chat input: each message costs 3 tokens of framing,
// a name 1 more, and every reply is primed with 3.
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_NAME = 1;
const TOKENS_REPLY_PRIMER = 3;

export function countChatInputTokens(tokenizer: Tokenizer, messages: readonly ChatMessage[]): number {
  let total = TOKENS_REPLY_PRIMER;
  for (const message of messages) {
    total += TOKENS_PER_MESSAGE + tokenizer.count(message.role) + tokenizer.count(message.content);
    if (message.name !== undefined) total += TOKENS_PER_NAME + tokenizer.count(message.name);
  }
  return total;
}
