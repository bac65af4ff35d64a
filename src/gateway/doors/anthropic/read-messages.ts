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
} from './request-fields.ts';

/**
 * Anthropic's `system` and `messages` onto the gateway's messages. Text blocks keep their text
 * (several blocks of one message are joined by a blank line), `tool_use` blocks become the
 * assistant message's tool calls (their `input` as JSON text), and each `tool_result` block becomes
 * a `tool` message answering its call. Blocks the gateway cannot carry to every upstream and that
 * change the answer (images, documents, thinking, server tool results, …) are a 400 naming the
 * block, rather than being dropped in silence.
 */

const BLOCK_SEPARATOR = '\n\n';

/** Said in the text of a `tool_result` with `is_error: true`, since no upstream message carries the flag. */
export const TOOL_ERROR_PREFIX = 'Error: ';

export function readSystem(value: unknown, path: FieldPath): ChatMessage | undefined {
  const text = typeof value === 'string' ? value : readTextBlocks(value, path);
  return text === '' ? undefined : { role: 'system', content: text };
}

export function readMessages(value: unknown, path: FieldPath): ChatMessage[] {
  const items = readArray(value, path);
  if (items.length === 0) throw invalidField(path, 'must contain at least one message');
  const messages: ChatMessage[] = [];
  const callIds = new Set<string>();
  items.forEach((item, index) => {
    const itemPath = [...path, index];
    const message = readObject(item, itemPath);
    const role = message.role;
    const contentPath = [...itemPath, 'content'];
    if (role === 'user') readUserContent(message.content, contentPath, callIds, messages);
    else if (role === 'assistant') messages.push(readAssistantContent(message.content, contentPath, callIds));
    else if (role === 'system') {
      const content =
        typeof message.content === 'string' ? message.content : readTextBlocks(message.content, contentPath);
      messages.push({ role: 'system', content });
    } else throw invalidField([...itemPath, 'role'], "must be 'user' or 'assistant'");
  });
  return messages;
}

/** Text blocks only (`system`, `tool_result` content), joined. */
function readTextBlocks(value: unknown, path: FieldPath): string {
  const blocks = readArray(value, path);
  const texts: string[] = [];
  blocks.forEach((item, index) => {
    const block = readBlock(item, [...path, index]);
    if (block.type !== 'text')
      throw unsupportedBlock(block.type, [...path, index, 'type'], 'only text blocks are accepted here');
    texts.push(readString(block.text, [...path, index, 'text']));
  });
  return texts.join(BLOCK_SEPARATOR);
}

interface Block extends JsonObject {
  type: string;
}

function readBlock(item: unknown, path: FieldPath): Block {
  const block = readObject(item, path);
  if (typeof block.type !== 'string') throw invalidField([...path, 'type'], 'must be a string');
  return block as Block;
}

function readUserContent(
  value: unknown,
  path: FieldPath,
  callIds: ReadonlySet<string>,
  out: ChatMessage[],
): void {
  if (typeof value === 'string') {
    out.push({ role: 'user', content: value });
    return;
  }
  const blocks = readArray(value, path);
  if (blocks.length === 0) throw invalidField(path, 'must not be empty');
  let texts: string[] = [];
  const flushText = () => {
    if (texts.length > 0) out.push({ role: 'user', content: texts.join(BLOCK_SEPARATOR) });
    texts = [];
  };
  blocks.forEach((item, index) => {
    const blockPath = [...path, index];
    const block = readBlock(item, blockPath);
    if (block.type === 'text') texts.push(readString(block.text, [...blockPath, 'text']));
    else if (block.type === 'tool_result') {
      // Order is kept: text written before a result stays before it.
      flushText();
      out.push(readToolResult(block, blockPath, callIds));
    } else throw unsupportedBlock(block.type, [...blockPath, 'type']);
  });
  flushText();
}

function readToolResult(block: Block, path: FieldPath, callIds: ReadonlySet<string>): ChatMessage {
  const id = readCallId(block.tool_use_id, [...path, 'tool_use_id']);
  if (!callIds.has(id)) {
    throw invalidField(
      [...path, 'tool_use_id'],
      `answers no tool_use block of an earlier assistant message (${id})`,
    );
  }
  const content = block.content;
  let text = '';
  if (typeof content === 'string') text = content;
  else if (content !== undefined && content !== null) text = readTextBlocks(content, [...path, 'content']);
  if (block.is_error === true) text = `${TOOL_ERROR_PREFIX}${text}`;
  return { role: 'tool', content: text, toolCallId: id };
}

function readAssistantContent(value: unknown, path: FieldPath, callIds: Set<string>): ChatMessage {
  if (typeof value === 'string') return { role: 'assistant', content: value };
  const blocks = readArray(value, path);
  if (blocks.length === 0) throw invalidField(path, 'must not be empty');
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  blocks.forEach((item, index) => {
    const blockPath = [...path, index];
    const block = readBlock(item, blockPath);
    if (block.type === 'text') texts.push(readString(block.text, [...blockPath, 'text']));
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
  const message: ChatMessage = { role: 'assistant', content: texts.join(BLOCK_SEPARATOR) };
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
      ? `'${shown}' blocks are not supported by this gateway (text, tool_use and tool_result are)`
      : `'${shown}' blocks are not supported: ${why}`,
  );
}
