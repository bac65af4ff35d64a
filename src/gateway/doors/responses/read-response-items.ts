import {
  type ContentPart,
  hasRichParts,
  MediaTally,
  partsText,
  type ThinkingPart,
} from '../../domain/content-parts.ts';
import type { ChatMessage, ToolCall } from '../../domain/messages.ts';
import { refuseField } from '../openai-refusal.ts';
import { isObject, type JsonObject } from '../request-fields.ts';
import { readMediaPart } from './read-response-parts.ts';
import { flatName } from './read-response-tools.ts';
import { decodeReasoning } from './reasoning-items.ts';

/** The conversation read from `input`, and where each message came from (for error pointers). */
export interface ReadItems {
  messages: ChatMessage[];
  /** For each message, the pointer of the item it was read from. */
  sources: string[];
}

/** The reading so far, and the thinking of `reasoning` items waiting for the assistant turn they precede. */
interface Reading extends ReadItems {
  thinking: ThinkingPart[];
}

/**
 * Reads a Responses `input` (with `instructions` before it) into the gateway's conversation.
 * A string is one user message. Items: `message` (roles system and developer become the system
 * prompt's messages, user, assistant; the short form without `type` too), `function_call` and
 * `custom_tool_call` (calls of the assistant: consecutive ones join one assistant message, as
 * Chat Completions wants them), `function_call_output` and `custom_tool_call_output` (tool
 * results). A `reasoning` item whose `encrypted_content` is this gateway's token
 * (reasoning-items.ts) becomes a thinking part at the head of the assistant turn it precedes, so
 * the vendor that signed it gets it back; any other (OpenAI's own, which only OpenAI can read, or
 * one without the token) is left out, as is one that no assistant turn follows. A `custom_tool_call`'s free-form input goes back as the one string argument the
 * upstream was given (`{"input": …}`); a namespaced call by its flat name.
 */
export function readResponseInput(input: unknown, instructions: string | undefined): ReadItems {
  const read: Reading = { messages: [], sources: [], thinking: [] };
  // The request's images and files, against the bounds every door holds them to.
  const tally = new MediaTally();
  if (instructions !== undefined && instructions !== '')
    push(read, { role: 'system', content: instructions }, '/instructions');
  if (typeof input === 'string') {
    push(read, { role: 'user', content: input }, '/input');
    return { messages: read.messages, sources: read.sources };
  }
  if (!Array.isArray(input)) throw refuseField('/input', 'must be a string or an array of items');
  input.forEach((item: unknown, index) => {
    readItem(read, item, `/input/${index}`, tally);
  });
  return { messages: read.messages, sources: read.sources };
}

/**
 * Adds a message. The thinking waiting goes to the head of an assistant message's parts; any other
 * message means no assistant turn followed it, and it is dropped.
 */
function push(read: Reading, message: ChatMessage, source: string): void {
  if (read.thinking.length > 0) {
    if (message.role === 'assistant') {
      message.parts = [...read.thinking, ...(message.parts ?? textParts(message.content))];
    }
    read.thinking = [];
  }
  read.messages.push(message);
  read.sources.push(source);
}

function textParts(content: string): ContentPart[] {
  return content === '' ? [] : [{ type: 'text', text: content }];
}

function readItem(read: Reading, item: unknown, at: string, tally: MediaTally): void {
  if (!isObject(item)) throw refuseField(at, 'must be an object');
  const type = item['type'] ?? (item['role'] !== undefined ? 'message' : undefined);
  switch (type) {
    case 'message':
      push(read, readMessage(item, at, tally), at);
      return;
    case 'function_call': {
      const name = readText(item, 'name', at);
      const namespace = item['namespace'];
      const arguments_ = readText(item, 'arguments', at);
      const flat = typeof namespace === 'string' && namespace !== '' ? flatName(namespace, name) : name;
      addCall(read, { id: readText(item, 'call_id', at), name: flat, arguments: arguments_ }, at);
      return;
    }
    case 'custom_tool_call': {
      const name = readText(item, 'name', at);
      const namespace = item['namespace'];
      const flat = typeof namespace === 'string' && namespace !== '' ? flatName(namespace, name) : name;
      const input = readText(item, 'input', at);
      addCall(
        read,
        { id: readText(item, 'call_id', at), name: flat, arguments: JSON.stringify({ input }) },
        at,
      );
      return;
    }
    case 'function_call_output':
    case 'custom_tool_call_output':
      push(
        read,
        withContent(
          { role: 'tool', content: '', toolCallId: readText(item, 'call_id', at) },
          outputContent(item['output'], `${at}/output`, tally),
        ),
        at,
      );
      return;
    case 'reasoning': {
      const part = decodeReasoning(item['encrypted_content']);
      if (part !== undefined) read.thinking.push(part);
      return;
    }
    case 'item_reference':
      throw refuseField(`${at}/type`, "'item_reference' items are not supported: send the items themselves");
    default:
      // Only a string is quoted back: String() of a client's object calls its own `toString` key,
      // and `{"toString": 1}` made that a TypeError, a 500.
      throw refuseField(
        `${at}/type`,
        typeof type === 'string' ? `'${type.slice(0, 64)}' items are not supported` : 'must be a string',
      );
  }
}

/**
 * A call joins the assistant message just before it (with the thinking that came between them,
 * after that message's own), or starts one.
 */
function addCall(read: Reading, call: ToolCall, at: string): void {
  const last = read.messages.at(-1);
  if (last?.role === 'assistant') {
    last.toolCalls = [...(last.toolCalls ?? []), call];
    if (read.thinking.length > 0) {
      const own = last.parts ?? textParts(last.content);
      const thinking = own.filter((part) => part.type === 'thinking');
      const rest = own.filter((part) => part.type !== 'thinking');
      last.parts = [...thinking, ...read.thinking, ...rest];
      read.thinking = [];
    }
    return;
  }
  push(read, { role: 'assistant', content: '', toolCalls: [call] }, at);
}

function readMessage(item: JsonObject, at: string, tally: MediaTally): ChatMessage {
  const role = item['role'];
  const where = `${at}/content`;
  switch (role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: readContent(item['content'], where, undefined).text };
    case 'user':
      return withContent({ role: 'user', content: '' }, readContent(item['content'], where, tally));
    case 'assistant':
      return { role: 'assistant', content: readContent(item['content'], where, undefined).text };
    default:
      throw refuseField(`${at}/role`, "must be 'system', 'developer', 'user' or 'assistant'");
  }
}

function readText(item: JsonObject, key: string, at: string): string {
  const value = item[key];
  if (typeof value !== 'string') throw refuseField(`${at}/${key}`, 'must be a string');
  return value;
}

/** A message's content: its text, and its parts where they hold more than text. */
interface ReadContent {
  text: string;
  parts: ContentPart[];
}

/** The content on the message: its text, and the parts when there are images or files among them. */
function withContent(message: ChatMessage, content: ReadContent): ChatMessage {
  message.content = content.text;
  if (hasRichParts(content.parts)) message.parts = content.parts;
  return message;
}

/** The parts that are text: what a message of any role may hold. */
const TEXT_PARTS = new Set(['input_text', 'output_text', 'text', 'summary_text', 'reasoning_text']);

/**
 * A message's content: a string, or its parts, the text ones joined as the OpenAI door joins them.
 * `input_image` and `input_file` parts (read-response-parts.ts) are taken where `tally` is given:
 * on user messages and tool outputs, the places OpenAI takes them.
 */
function readContent(content: unknown, at: string, tally: MediaTally | undefined): ReadContent {
  if (typeof content === 'string') return { text: content, parts: [{ type: 'text', text: content }] };
  if (!Array.isArray(content)) throw refuseField(at, 'must be a string or an array of content parts');
  const parts: ContentPart[] = [];
  content.forEach((part: unknown, index) => {
    const partAt = `${at}/${index}`;
    if (!isObject(part) || typeof part['type'] !== 'string')
      throw refuseField(`${partAt}/type`, 'must be a string');
    const type = part['type'];
    if (TEXT_PARTS.has(type)) parts.push({ type: 'text', text: readText(part, 'text', partAt) });
    else if (type === 'refusal') parts.push({ type: 'text', text: readText(part, 'refusal', partAt) });
    else if (type === 'input_image' || type === 'input_file') {
      if (tally === undefined) {
        throw refuseField(`${partAt}/type`, `'${type}' parts belong on user messages and tool outputs`);
      }
      parts.push(readMediaPart(part, partAt, tally));
    } else throw refuseField(`${partAt}/type`, `'${type.slice(0, 64)}' content parts are not supported`);
  });
  return { text: partsText(parts, ''), parts };
}

/** A tool's output: a string, or parts (text, images, files). */
function outputContent(output: unknown, at: string, tally: MediaTally): ReadContent {
  if (output === undefined || output === null) throw refuseField(at, 'must be a string or an array of parts');
  return readContent(output, at, tally);
}
