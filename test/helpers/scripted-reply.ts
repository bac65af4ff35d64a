/**
 * What a strict vendor mock answers when a test scripts it: text, tool calls, or both. Each mock
 * (mock-openai-server.ts, mock-anthropic-server.ts, mock-gemini-server.ts) turns one of these into
 * its vendor's body, or its vendor's event stream when the request asked for one.
 */
export interface ScriptedToolCall {
  /** Defaults to a vendor-looking id (`call_…`, `toolu_…`); Gemini sends none unless given. */
  id?: string;
  name: string;
  /** JSON text (streamed in fragments as given) or an object (serialised first). */
  arguments: string | Record<string, unknown>;
  /**
   * `custom` makes it a Responses `custom_tool_call` whose free-form `input` is `arguments` as
   * given (Codex's apply_patch); the other wires know only function calls.
   */
  kind?: 'function' | 'custom';
}

/**
 * Reasoning the answer carries before its text: an Anthropic `thinking` block with its
 * `signature`, or a Responses `reasoning` item (the text as its summary, the signature as its
 * `encrypted_content`). The other wires have no such part.
 */
export interface ScriptedThinking {
  text: string;
  signature: string;
}

/**
 * Usage to report instead of the rough count. Cache counts use each vendor's fields: Anthropic's
 * `cache_read_input_tokens` and `cache_creation` (5-minute and 1-hour writes; `inputTokens` is
 * `input_tokens`, without the cached part); OpenAI's `cached_tokens` and Gemini's
 * `cachedContentTokenCount` (reads only; `inputTokens` is the whole prompt, the reads inside it).
 */
export interface ScriptedUsage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWrite5mTokens?: number;
  cacheWrite1hTokens?: number;
  reasoningTokens?: number;
}

export interface ScriptedReply {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /**
   * Characters per streamed argument fragment (default 7): each call's arguments are cut into
   * pieces this long and, where the vendor interleaves parallel calls (OpenAI), sent round-robin.
   */
  fragmentSize?: number;
  /**
   * The stop sequence the answer ended on. Only Anthropic's wire says which (`stop_reason:
   * stop_sequence`, `stop_sequence`); the other mocks ignore it.
   */
  stopSequence?: string;
  thinking?: ScriptedThinking[];
  usage?: ScriptedUsage;
}

/** The prompt tokens a scripted answer reports when its `usage` does not say (none of them cached). */
export const SCRIPTED_PROMPT_TOKENS = 20;

export function argumentsText(call: ScriptedToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

/** `text` cut into pieces of `size` characters (at least one piece, maybe empty). */
export function fragmentsOf(text: string, size = 7): string[] {
  const step = Math.max(1, Math.floor(size));
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += step) pieces.push(text.slice(at, at + step));
  return pieces.length === 0 ? [''] : pieces;
}

/** Rough token counts for scripted usage: about four characters a token. */
export function roughTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Why a request is refused: the mock answers 400 in its vendor's error shape with this message. */
export class MockRejection extends Error {
  readonly param: string | null;
  constructor(message: string, param: string | null = null) {
    super(message);
    this.param = param;
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Prompt-cache counts of a script: reads, and writes kept 5 minutes and 1 hour (Anthropic only). */
export interface ScriptedCache {
  read?: number;
  write5m?: number;
  write1h?: number;
}

/**
 * A script's `usage` with these cache counts beside `SCRIPTED_PROMPT_TOKENS` uncached ones, in the
 * vendor's sense of `inputTokens`: Anthropic's leaves the cache out; OpenAI's and Gemini's prompt
 * count holds the reads (and they report no writes).
 */
export function scriptedCacheUsage(
  vendor: 'anthropic' | 'openai' | 'gemini',
  cache: ScriptedCache,
): ScriptedUsage {
  const read = cache.read ?? 0;
  if (vendor !== 'anthropic') return { inputTokens: SCRIPTED_PROMPT_TOKENS + read, cacheReadTokens: read };
  return {
    cacheReadTokens: read,
    cacheWrite5mTokens: cache.write5m ?? 0,
    cacheWrite1hTokens: cache.write1h ?? 0,
  };
}
