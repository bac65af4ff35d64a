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
  /**
   * Prompt-cache tokens the answer reports, in its vendor's fields, beside the 20 prompt tokens
   * every scripted answer has: Anthropic reports reads and 5-minute and 1-hour writes apart from
   * its `input_tokens`; OpenAI (`cached_tokens`) and Gemini (`cachedContentTokenCount`) report
   * reads as part of the prompt's count, and no writes (their mocks ignore `write5m`/`write1h`).
   */
  promptCache?: ScriptedPromptCache;
}

export interface ScriptedPromptCache {
  read?: number;
  write5m?: number;
  write1h?: number;
}

/** The prompt tokens of a scripted answer that are neither read from nor written to a cache. */
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
