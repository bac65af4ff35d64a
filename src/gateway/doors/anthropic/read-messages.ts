import {
  type ContentPart,
  hasRichParts,
  type MediaTally,
  partsText,
  type TextPart,
  type ThinkingPart,
} from '../../domain/content-parts.ts';
import type { ChatMessage, ToolCall } from '../../domain/messages.ts';
import { MAX_TOOL_CALL_ID_LENGTH } from '../../domain/tool-limits.ts';
import {
  type FieldPath,
  invalidField,
  isObject,
  type JsonObject,
  readArray,
  readNonEmptyString,
  readObject,
  readString,
} from '../request-fields.ts';
import { readCacheMark, readDocumentBlock, readImageBlock, readThinkingBlock } from './read-media-blocks.ts';

/**
 * Anthropic's `system` and `messages` onto the gateway's messages. Text blocks keep their text
 * (several blocks of one message are joined by a blank line), `tool_use` blocks become the
 * assistant message's tool calls (their `input` as JSON text), and each `tool_result` block becomes
 * a `tool` message answering its call. Images, PDF documents (in user turns and tool results),
 * thinking blocks (in assistant turns) and `cache_control` markers become content parts
 * (read-media-blocks.ts), which each adapter writes in its vendor's form. Blocks that no other
 * vendor has (server tool results, search results, citations, …) are a 400 naming the block.
 */

const BLOCK_SEPARATOR = '\n\n';

/** Said in the text of a `tool_result` with `is_error: true`, since no upstream message carries the flag. */
export const TOOL_ERROR_PREFIX = 'Error: ';

export function readSystem(value: unknown, path: FieldPath): ChatMessage | undefined {
  if (typeof value === 'string') return value === '' ? undefined : { role: 'system', content: value };
  const parts = readTextBlocks(value, path);
  const message = messageOf('system', parts);
  return message.content === '' ? undefined : message;
}

export function readMessages(value: unknown, path: FieldPath, tally: MediaTally): ChatMessage[] {
  const items = readArray(value, path);
  if (items.length === 0) throw invalidField(path, 'must contain at least one message');
  const messages: ChatMessage[] = [];
  const callIds = new Set<string>();
  items.forEach((item, index) => {
    const itemPath = [...path, index];
    const message = readObject(item, itemPath);
    const role = message.role;
    const contentPath = [...itemPath, 'content'];
    if (role === 'user') readUserContent(message.content, contentPath, callIds, messages, tally);
    else if (role === 'assistant') messages.push(readAssistantContent(message.content, contentPath, callIds));
    else if (role === 'system') {
      messages.push(
        typeof message.content === 'string'
          ? { role: 'system', content: message.content }
          : messageOf('system', readTextBlocks(message.content, contentPath)),
      );
    } else throw invalidField([...itemPath, 'role'], "must be 'user' or 'assistant'");
  });
  return messages;
}

/**
 * A message of these parts: `content` their text; the parts kept when they say more than it (media,
 * thinking). The cache markers of a text-only message go with its parts: this lane is the
 * cross-vendor one, which takes them out (CONTRACT 5.2); the same-vendor lane keeps the body whole.
 */
function messageOf(role: ChatMessage['role'], parts: readonly ContentPart[]): ChatMessage {
  const message: ChatMessage = { role, content: partsText(parts, BLOCK_SEPARATOR) };
  if (hasRichParts(parts)) message.parts = parts;
  return message;
}

/** Text blocks only (`system`). */
function readTextBlocks(value: unknown, path: FieldPath): TextPart[] {
  const blocks = readArray(value, path);
  return blocks.map((item, index) => {
    const block = readBlock(item, [...path, index]);
    if (block.type !== 'text')
      throw unsupportedBlock(block.type, [...path, index, 'type'], 'only text blocks are accepted here');
    return readTextBlock(block, [...path, index]);
  });
}

function readTextBlock(block: Block, path: FieldPath): TextPart {
  const citations = block.citations;
  if (Array.isArray(citations) && citations.length > 0) {
    throw invalidField([...path, 'citations'], 'not supported: citations are returned by Anthropic only');
  }
  const part: TextPart = { type: 'text', text: readString(block.text, [...path, 'text']) };
  const cache = readCacheMark(block, path);
  if (cache !== undefined) part.cache = cache;
  return part;
}

interface Block extends JsonObject {
  type: string;
}

function readBlock(item: unknown, path: FieldPath): Block {
  const block = readObject(item, path);
  if (typeof block.type !== 'string') throw invalidField([...path, 'type'], 'must be a string');
  return block as Block;
}

/** A user turn's or a tool result's media or text block as a part; undefined for another type. */
function readUserPart(block: Block, path: FieldPath, tally: MediaTally): ContentPart | undefined {
  if (block.type === 'text') return readTextBlock(block, path);
  if (block.type === 'image') return readImageBlock(block, path, tally);
  if (block.type === 'document') return readDocumentBlock(block, path, tally);
  return undefined;
}

function readUserContent(
  value: unknown,
  path: FieldPath,
  callIds: ReadonlySet<string>,
  out: ChatMessage[],
  tally: MediaTally,
): void {
  if (typeof value === 'string') {
    out.push({ role: 'user', content: value });
    return;
  }
  const blocks = readArray(value, path);
  if (blocks.length === 0) throw invalidField(path, 'must not be empty');
  let parts: ContentPart[] = [];
  const flush = () => {
    if (parts.length > 0) out.push(messageOf('user', parts));
    parts = [];
  };
  blocks.forEach((item, index) => {
    const blockPath = [...path, index];
    const block = readBlock(item, blockPath);
    const part = readUserPart(block, blockPath, tally);
    if (part !== undefined) parts.push(part);
    else if (block.type === 'tool_result') {
      // Order is kept: what was written before a result stays before it.
      flush();
      out.push(readToolResult(block, blockPath, callIds, tally));
    } else throw unsupportedBlock(block.type, [...blockPath, 'type']);
  });
  flush();
}

function readToolResult(
  block: Block,
  path: FieldPath,
  callIds: ReadonlySet<string>,
  tally: MediaTally,
): ChatMessage {
  const id = readCallId(block.tool_use_id, [...path, 'tool_use_id']);
  if (!callIds.has(id)) {
    throw invalidField(
      [...path, 'tool_use_id'],
      `answers no tool_use block of an earlier assistant message (${id})`,
    );
  }
  const content = block.content;
  let parts: ContentPart[] = [];
  if (typeof content === 'string') parts = [{ type: 'text', text: content }];
  else if (content !== undefined && content !== null) {
    const contentPath = [...path, 'content'];
    parts = readArray(content, contentPath).map((item, index) => {
      const itemPath = [...contentPath, index];
      const inner = readBlock(item, itemPath);
      const part = readUserPart(inner, itemPath, tally);
      if (part === undefined) {
        throw unsupportedBlock(
          inner.type,
          [...itemPath, 'type'],
          'a tool result holds text, image and document blocks',
        );
      }
      return part;
    });
  }
  if (block.is_error === true) {
    const first = parts[0];
    if (first?.type === 'text') parts[0] = { ...first, text: `${TOOL_ERROR_PREFIX}${first.text}` };
    else parts.unshift({ type: 'text', text: TOOL_ERROR_PREFIX });
  }
  const message = messageOf('tool', parts);
  message.toolCallId = id;
  return message;
}

function readAssistantContent(value: unknown, path: FieldPath, callIds: Set<string>): ChatMessage {
  if (typeof value === 'string') return { role: 'assistant', content: value };
  const blocks = readArray(value, path);
  if (blocks.length === 0) throw invalidField(path, 'must not be empty');
  const parts: (TextPart | ThinkingPart)[] = [];
  const calls: ToolCall[] = [];
  blocks.forEach((item, index) => {
    const blockPath = [...path, index];
    const block = readBlock(item, blockPath);
    if (block.type === 'text') parts.push(readTextBlock(block, blockPath));
    else if (block.type === 'thinking' || block.type === 'redacted_thinking')
      parts.push(readThinkingBlock(block, blockPath));
    else if (block.type === 'tool_use') {
      const id = readCallId(block.id, [...blockPath, 'id']);
      if (callIds.has(id))
        throw invalidField([...blockPath, 'id'], `repeats the id of an earlier tool_use (${id})`);
      callIds.add(id);
      const name = readNonEmptyString(block.name, [...blockPath, 'name']);
      if (!isObject(block.input)) throw invalidField([...blockPath, 'input'], 'must be an object');
      calls.push({ id, name, arguments: JSON.stringify(block.input) });
    } else throw unsupportedBlock(block.type, [...blockPath, 'type']);
  });
  const message = messageOf('assistant', parts);
  if (calls.length > 0) message.toolCalls = calls;
  return message;
}

/** A tool_use id, opaque (the gateway's ids for Gemini calls carry a thought signature) and bounded. */
function readCallId(value: unknown, path: FieldPath): string {
  const id = readNonEmptyString(value, path);
  if (id.length > MAX_TOOL_CALL_ID_LENGTH) {
    throw invalidField(path, `must be at most ${MAX_TOOL_CALL_ID_LENGTH} characters`);
  }
  return id;
}

function unsupportedBlock(type: string, path: FieldPath, why?: string): ReturnType<typeof invalidField> {
  const shown = type.length > 64 ? `${type.slice(0, 64)}…` : type;
  return invalidField(
    path,
    why === undefined
      ? `'${shown}' blocks are not supported by this gateway (text, image, document, thinking, tool_use and tool_result are)`
      : `'${shown}' blocks are not supported: ${why}`,
  );
}
