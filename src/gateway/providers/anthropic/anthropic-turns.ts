import { hasRichParts } from '../../domain/content-parts.ts';
import { boundedCallId } from '../bounded-call-id.ts';
import type { ChatMessage } from '../provider.ts';
import { argumentsObject } from '../tool-arguments.ts';
import {
  type AnthropicContentBlock,
  type AnthropicThinkingBlock,
  toAnthropicContent,
  toAnthropicThinking,
} from './anthropic-content-parts.ts';

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
}

export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | AnthropicContentBlock[];
}

export type AnthropicBlock =
  | AnthropicTextBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicContentBlock
  | AnthropicThinkingBlock;

/** A turn's content is plain text unless it carries tool blocks. */
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | AnthropicBlock[];
}

/**
 * The user turn inserted where Anthropic's turn rules need one and the caller gave none: before a
 * leading assistant message, after a trailing one, or when only system messages were sent.
 */
export const FILLER_USER_TURN = '(continue)';

interface Turn {
  role: 'user' | 'assistant';
  /** Thinking blocks (Anthropic's own, with their signatures), which lead an assistant turn. */
  thinking: AnthropicThinkingBlock[];
  /** The body in order: plain texts, and blocks of messages with media. */
  items: (string | AnthropicContentBlock)[];
  /** tool_use blocks on an assistant turn, tool_result blocks on a user turn. */
  tools: (AnthropicToolUseBlock | AnthropicToolResultBlock)[];
}

/**
 * The non-system messages as Anthropic turns, which must alternate and start with `user`:
 * consecutive same-role messages merge into one turn (texts joined by a blank line), empty ones are
 * dropped, and a filler user turn goes before a leading assistant message and after a trailing
 * one (Anthropic would take a trailing assistant turn as a prefill to continue; every other
 * upstream answers with a new message, and the gateway keeps that meaning here).
 *
 * Tool calling: an assistant message's `toolCalls` become `tool_use` blocks after its text, their
 * `input` the parsed arguments. A `tool` message with a `toolCallId` becomes a `tool_result` block
 * in a user turn, so consecutive results share one turn, and a user text that follows joins it.
 * Anthropic wants the results first in that turn, so a turn's `tool_result` blocks come before its
 * text. A `tool` message without a `toolCallId` (older clients) has no `tool_use` to pair with and
 * stays user text labelled `Tool result (name):`.
 *
 * `name` has no field in Anthropic's messages: on a user message it is kept as a `name: `
 * prefix, so several speakers stay distinguishable; on an assistant message it is dropped, as a
 * prefix there would teach the model to start its own replies with a name.
 */
export function toAnthropicTurns(messages: readonly ChatMessage[]): AnthropicMessage[] {
  const turns: Turn[] = [];
  const turnFor = (role: Turn['role']): Turn => {
    const previous = turns.at(-1);
    if (previous?.role === role) return previous;
    const turn: Turn = { role, thinking: [], items: [], tools: [] };
    turns.push(turn);
    return turn;
  };
  for (const message of messages) {
    if (message.role === 'system') continue;
    const calls = message.role === 'assistant' ? (message.toolCalls ?? []) : [];
    if (message.role === 'tool' && message.toolCallId !== undefined) {
      const result: AnthropicToolResultBlock = {
        type: 'tool_result',
        tool_use_id: boundedCallId(message.toolCallId, 'anthropic'),
      };
      // An empty result is sent without content: Anthropic refuses empty text.
      if (hasRichParts(message.parts)) result.content = toAnthropicContent(message.parts ?? []);
      else if (message.content !== '') result.content = message.content;
      turnFor('user').tools.push(result);
      continue;
    }
    const thinking = message.role === 'assistant' ? toAnthropicThinking(message.parts) : [];
    const media = message.role === 'user' && hasRichParts(message.parts);
    // Anthropic rejects empty content on any turn but a final assistant one; an empty message says nothing.
    const hasText = message.content.trim() !== '';
    if (!hasText && !media && calls.length === 0) continue;
    const turn = turnFor(message.role === 'assistant' ? 'assistant' : 'user');
    turn.thinking.push(...thinking);
    if (media) turn.items.push(...toAnthropicContent(message.parts ?? []));
    else if (hasText) turn.items.push(turnText(message));
    for (const call of calls) {
      turn.tools.push({
        type: 'tool_use',
        id: boundedCallId(call.id, 'anthropic'),
        name: call.name,
        input: argumentsObject(call.arguments),
      });
    }
  }
  const out = turns.map(toMessage);
  if (out[0]?.role !== 'user') out.unshift({ role: 'user', content: FILLER_USER_TURN });
  if (out.at(-1)?.role === 'assistant') out.push({ role: 'user', content: FILLER_USER_TURN });
  return out;
}

function toMessage(turn: Turn): AnthropicMessage {
  const plain = turn.items.every((item) => typeof item === 'string');
  if (turn.tools.length === 0 && turn.thinking.length === 0 && plain) {
    return { role: turn.role, content: (turn.items as string[]).join('\n\n') };
  }
  const body = bodyBlocks(turn.items);
  // Claude writes its thinking first and its text before its calls; results lead the user turn that carries them.
  const content: AnthropicBlock[] =
    turn.role === 'assistant' ? [...turn.thinking, ...body, ...turn.tools] : [...turn.tools, ...body];
  return { role: turn.role, content };
}

/** Adjacent plain texts joined into one text block (as a turn of text alone is), blocks as they are. */
function bodyBlocks(items: readonly (string | AnthropicContentBlock)[]): AnthropicContentBlock[] {
  const blocks: AnthropicContentBlock[] = [];
  let texts: string[] = [];
  const flush = () => {
    const text = texts.join('\n\n');
    if (text !== '') blocks.push({ type: 'text', text });
    texts = [];
  };
  for (const item of items) {
    if (typeof item === 'string') texts.push(item);
    else {
      flush();
      blocks.push(item);
    }
  }
  flush();
  return blocks;
}

function turnText(message: ChatMessage): string {
  const name = message.name?.trim();
  if (message.role === 'tool') {
    return `${name ? `Tool result (${name})` : 'Tool result'}:\n${message.content}`;
  }
  if (message.role === 'user' && name) return `${name}: ${message.content}`;
  return message.content;
}
