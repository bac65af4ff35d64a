import { mediaTokens } from './media-tokens.ts';
import type { ChatMessage, ToolCall, ToolDefinition } from './messages.ts';

/**
 * The gateway's tokenizer (o200k_base, the GPT-4o family). Every call is bounded in time whatever
 * the input (encoding-tokenizer.ts: slices, sampling past EXACT_COUNT_CHARS) and runs off the
 * event loop, on the tokenizer's own thread (src/gateway/tokenizer/). A call rejects when the
 * tokenizer cannot serve it (its thread failed twice running): callers decide what that costs.
 */
export interface Tokenizer {
  /** Tokens of each text counted separately, summed. */
  count(texts: string | readonly string[]): Promise<number>;
  /** A simulated model's answer by token: cut at `maxTokens`, and in chunks for a stream. */
  tokenizeAnswer(content: string, limits: AnswerLimits): Promise<TokenizedAnswer>;
}

export interface AnswerLimits {
  /** Tokens the answer is cut after; undefined keeps it whole. */
  maxTokens: number | undefined;
  /** Tokens per streamed chunk (at least); undefined asks for no chunks. */
  chunkTokens: number | undefined;
}

export interface TokenizedAnswer {
  /** The answer's text, or its first `maxTokens` tokens with a character cut at the end dropped. */
  content: string;
  /** Tokens of the answer as given (`maxTokens` at most). */
  tokens: number;
  /** Whether `maxTokens` cut it. */
  truncated: boolean;
  /** With `chunkTokens`: the text in chunks of whole characters; joined, they are `content`. */
  chunks?: string[];
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
 * Characters of a tool call id that count. Ids the model reads are short (OpenAI accepts 40
 * characters); longer ones are the gateway's carriers (a Gemini call's id holds its thought
 * signature, up to 64 KiB), which reach no vendor as text: counted whole, a tool loop's ids
 * inflated the limit reservation by thousands of tokens per call and could refuse it with a 429.
 */
const ID_CHARS_COUNTED = 40;

function idText(id: string): string {
  return id.length <= ID_CHARS_COUNTED ? id : id.slice(0, ID_CHARS_COUNTED);
}

/**
 * Input tokens of a chat: the messages, with the tool calls and results they carry, their images
 * and PDFs, and the tool definitions. One count over all the texts, so the bounds above hold for the whole request.
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
    if (message.toolCallId !== undefined) texts.push(idText(message.toolCallId));
    if (message.toolCalls !== undefined) framing += pushToolCallTexts(message.toolCalls, texts);
  }
  if (tools !== undefined) {
    for (const tool of tools) {
      framing += TOKENS_PER_TOOL;
      texts.push(toolText(tool));
    }
  }
  // Images and PDFs are no text: counted as the vendors count them (media-tokens.ts).
  return framing + mediaTokens(messages) + (await tokenizer.count(texts));
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

/** The texts of an answer: its content and the tool calls it made. */
export function chatOutputTexts(content: string, toolCalls?: readonly ToolCall[]): string[] {
  const texts = [content];
  if (toolCalls !== undefined) pushToolCallTexts(toolCalls, texts);
  return texts;
}

function pushToolCallTexts(calls: readonly ToolCall[], texts: string[]): number {
  for (const call of calls) texts.push(idText(call.id), call.name, call.arguments);
  return calls.length * TOKENS_PER_TOOL_CALL;
}

/** A tool as the model reads it; its size is bounded where tools are validated. */
function toolText(tool: ToolDefinition): string {
  return `${tool.name}\n${tool.description ?? ''}\n${JSON.stringify(tool.parameters)}`;
}
