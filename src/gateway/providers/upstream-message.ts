import { type ContextOverflowFault, readOverflowMessage } from '../domain/agent-fault.ts';
import { isRecord } from './json-guards.ts';

/** The longest upstream message passed on; longer ones are cut (with an ellipsis). */
export const MAX_UPSTREAM_MESSAGE_LENGTH = 1_000;

/**
 * What looks like a credential in free text: vendor key formats (OpenAI `sk-`, Anthropic
 * `sk-ant-`, Google `AIza`, the gateway's own `gws_`), a bearer token, `key=`/`api_key:` values,
 * and any unbroken run of 32 or more key-like characters (hex, base64, base64url). Upstreams echo
 * keys in messages ("Incorrect API key provided: sk-…"), so a message is passed on only through this.
 */
const SECRET_LIKE = [
  /\b(?:sk|rk|pk)-[A-Za-z0-9_-]{8,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /\bgws_[A-Za-z0-9_-]{8,}/g,
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
  /\b[Bb]earer\s+[^\s"',;]+/g,
  /\b((?:api[_-]?)?key|token|secret|password)(\s*[=:]\s*)[^\s"',;&]+/gi,
  /[A-Za-z0-9+/_=-]{32,}/g,
];

/**
 * Removes whatever looks like a secret from an upstream's text, and every one of `secrets` (the
 * slot's configured keys) wherever it appears, whatever its shape. What is left is bounded in
 * length and has no control characters.
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  for (const pattern of SECRET_LIKE) {
    out = out.replace(pattern, (_match, name?: string, separator?: string) =>
      typeof name === 'string' && typeof separator === 'string'
        ? `${name}${separator}[redacted]`
        : '[redacted]',
    );
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  out = out.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return out.length > MAX_UPSTREAM_MESSAGE_LENGTH ? `${out.slice(0, MAX_UPSTREAM_MESSAGE_LENGTH)}…` : out;
}

/**
 * The human-readable message of an upstream error body, redacted: `{error: {message}}` (OpenAI,
 * Anthropic, Gemini, and servers compatible with them) or a top-level `message` (older vLLM).
 * Only read for a 400 or 404, the statuses whose message the client is given (contract 5.2).
 */
export function upstreamMessageOf(status: number | undefined, parsed: unknown): { upstreamMessage?: string } {
  if (status !== 400 && status !== 404) return {};
  // Some Google front ends wrap the Status in a one-element array.
  const body = Array.isArray(parsed) ? parsed[0] : parsed;
  const error = isRecord(body) && isRecord(body['error']) ? body['error'] : isRecord(body) ? body : undefined;
  const message = error?.['message'];
  if (typeof message !== 'string' || message.trim() === '') return {};
  return { upstreamMessage: redactSecrets(message) };
}

/**
 * A 400's message and, when it says the prompt is past the model's context window (each vendor's
 * phrase, or `overflowCode` where the vendor names it with a code, OpenAI's
 * `context_length_exceeded`), that overflow with the figures the message gives.
 */
export function upstreamRejectionOf(
  status: number | undefined,
  parsed: unknown,
  overflowCode = false,
): { upstreamMessage?: string; overflow?: ContextOverflowFault } {
  const passed = upstreamMessageOf(status, parsed);
  if (status !== 400) return passed;
  const read = readOverflowMessage(passed.upstreamMessage);
  const found = read ?? (overflowCode ? overflow(passed.upstreamMessage) : undefined);
  return found === undefined ? passed : { ...passed, overflow: found };
}

function overflow(message: string | undefined): ContextOverflowFault {
  return { kind: 'context_overflow', promptTokens: undefined, maxTokens: undefined, message };
}
