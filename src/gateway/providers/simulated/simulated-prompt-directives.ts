import type { ChatMessage } from '../provider.ts';

const OPEN = '<simulated>';
const CLOSE = '</simulated>';
/** The longest block read: a directive is a few names and arguments, never a document. */
export const MAX_PROMPT_DIRECTIVE_CHARS = 16_384;

/**
 * The directives a prompt carries for a client that cannot send `metadata` (Gemini CLI, Claude
 * Code, Codex): the first `<simulated>{…}</simulated>` block of the conversation's last user
 * message, whose JSON object says what `metadata.simulated` would. Only that message is read, so
 * a directive steers the turn it was written for and the tool loop that follows it, never a later
 * prompt; a block that is longer than MAX_PROMPT_DIRECTIVE_CHARS, unclosed or not a JSON object
 * is ignored, as an unknown directive is. The provider reads it only where the slot allows request
 * directives, and merges `metadata.simulated` over it.
 */
export function promptDirectives(messages: readonly ChatMessage[]): Record<string, unknown> | undefined {
  const text = messages.findLast((message) => message.role === 'user')?.content;
  if (text === undefined) return undefined;
  const open = text.indexOf(OPEN);
  if (open === -1) return undefined;
  const start = open + OPEN.length;
  const close = text.indexOf(CLOSE, start);
  if (close === -1 || close - start > MAX_PROMPT_DIRECTIVE_CHARS) return undefined;
  try {
    const value: unknown = JSON.parse(text.slice(start, close));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
