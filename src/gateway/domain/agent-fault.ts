/**
 * Two failures that an agent acts on rather than gives up on (CONTRACT 6.1): a rate limit, after
 * which it waits and sends again, and a prompt past the model's context window, after which it
 * compacts or trims its history. Each vendor's clients recognise them only in their vendor's form
 * (OpenAI `rate_limit_exceeded` and `context_length_exceeded`, Anthropic `rate_limit_error` and
 * "prompt is too long: N tokens > M maximum", Google `RESOURCE_EXHAUSTED` and `INVALID_ARGUMENT`),
 * so the gateway keeps the fault in its own words from where it is recognised (an adapter's error
 * mapping, the gateway's own limits) to each door, which writes it in its vendor's form.
 */
export type AgentFault = RateLimitFault | ContextOverflowFault;

export interface RateLimitFault {
  kind: 'rate_limit';
  /** How long the client should wait before sending again, in ms. */
  retryAfterMs: number;
  /** What ran out, where known: OpenAI's error `type` names it. */
  limit: 'requests' | 'tokens' | undefined;
}

export interface ContextOverflowFault {
  kind: 'context_overflow';
  /** The prompt's tokens: the upstream's figure when its message gives one, else the gateway's count. */
  promptTokens: number | undefined;
  /** The model's context window: the upstream's figure, else the price data's or the configuration's. */
  maxTokens: number | undefined;
  /** The upstream's own message (secrets removed), when an upstream refused the prompt. */
  message: string | undefined;
}

/** The wait told to a client when the upstream or the limit named none. */
export const DEFAULT_RETRY_AFTER_MS = 1_000;

/** A figure an upstream wrote in its message, read as tokens: digits only, thousands separators allowed. */
function tokensOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text.replaceAll(',', ''));
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/**
 * Each vendor's overflow message, with the prompt's size and the window where it gives them:
 * Anthropic "prompt is too long: 208310 tokens > 200000 maximum"; OpenAI (and servers compatible
 * with it, vLLM) "This model's maximum context length is 128000 tokens. However, your messages
 * resulted in 130012 tokens" or "… you requested 8250 tokens (8000 in the messages, 250 in the
 * completion)"; the Responses API "Your input exceeds the context window of this model"; Gemini
 * "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)";
 * Bedrock's ValidationException "Input is too long for requested model." (no figures; from
 * Claude it may instead pass on Anthropic's sentence after "The model returned the following
 * errors:").
 */
const ANTHROPIC_FORM = /prompt is too long:\s*([\d,]+)\s*tokens\s*>\s*([\d,]+)\s*maximum/i;
const OPENAI_WINDOW = /maximum context length is\s*([\d,]+)\s*tokens/i;
const OPENAI_MESSAGES = /([\d,]+) in the messages/i;
const OPENAI_PROMPT = /(?:resulted in|requested)\s*([\d,]+)\s*tokens/i;
const GEMINI_FORM =
  /input token count\s*\(?([\d,]+)?\)?\s*exceeds the maximum number of tokens allowed\s*\(?([\d,]+)?\)?/i;
const WORDS_ONLY =
  /prompt is too long|exceeds the context window|context[_ ]length[_ ]exceeded|input is too long for requested model/i;

/**
 * The overflow an upstream's message describes, or undefined when it describes none. The message
 * is only searched for the vendors' fixed phrases and figures, so nothing else of it is trusted.
 */
export function readOverflowMessage(message: string | undefined): ContextOverflowFault | undefined {
  if (message === undefined) return undefined;
  const anthropic = ANTHROPIC_FORM.exec(message);
  if (anthropic !== null) return overflow(tokensOf(anthropic[1]), tokensOf(anthropic[2]), message);
  const window = OPENAI_WINDOW.exec(message);
  if (window !== null) {
    const prompt = OPENAI_MESSAGES.exec(message) ?? OPENAI_PROMPT.exec(message);
    return overflow(tokensOf(prompt?.[1]), tokensOf(window[1]), message);
  }
  const gemini = GEMINI_FORM.exec(message);
  if (gemini !== null) return overflow(tokensOf(gemini[1]), tokensOf(gemini[2]), message);
  return WORDS_ONLY.test(message) ? overflow(undefined, undefined, message) : undefined;
}

export function overflow(
  promptTokens: number | undefined,
  maxTokens: number | undefined,
  message?: string,
): ContextOverflowFault {
  return { kind: 'context_overflow', promptTokens, maxTokens, message };
}

/**
 * A wait as OpenAI writes it in "Please try again in 1.5s." (and as Codex reads it back): whole
 * milliseconds under a second (`850ms`), else seconds with up to three decimals (`1.5s`, `20s`).
 */
export function formatRetryDelay(ms: number): string {
  const whole = Math.max(1, Math.ceil(ms));
  if (whole < 1_000) return `${whole}ms`;
  return `${Number((whole / 1_000).toFixed(3))}s`;
}

/** Retry-After in whole seconds (RFC 9110), never 0 for a wait that is not over. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1_000));
}
