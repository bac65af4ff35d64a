import {
  base64DecodedBytes,
  type ContentPart,
  IMAGE_MEDIA_TYPES,
  isPassableUrl,
  type MediaTally,
  PDF_MEDIA_TYPE,
  partsText,
  type ThinkingPart,
} from '../../domain/content-parts.ts';
import type { ChatMessage, ToolCall } from '../../domain/messages.ts';
import { refuseGeminiField } from './gemini-refusal.ts';
import { decodeThoughtToken } from './thought-token.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The calls of the last model turn, for the function responses that answer them. */
interface OpenCalls {
  calls: ToolCall[];
  answered: Set<string>;
}

/**
 * `contents` (and `systemInstruction`) as the gateway's messages, for the cross-vendor lane:
 * `user` turns' text, `inlineData` (images, PDFs, text documents) and `fileData` (an https URL,
 * passed on), `functionResponse` parts as tool results; `model` turns' text, `functionCall` parts
 * as tool calls and a `thoughtSignature` of the gateway's as the turn's signed thinking. Gemini
 * lets a call and its response go without ids: a call without one gets `call_<turn>_<part>`, and a
 * response without one answers the first unanswered call of its name in the turn before it.
 */
export function readGeminiContents(contents: unknown, system: unknown, tally: MediaTally): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const instruction = systemText(system);
  if (instruction !== undefined) messages.push({ role: 'system', content: instruction });
  if (!Array.isArray(contents) || contents.length === 0)
    throw refuseGeminiField('contents', 'must be a non-empty list of Content');
  let open: OpenCalls = { calls: [], answered: new Set() };
  contents.forEach((content, turn) => {
    const at = `contents[${turn}]`;
    if (!isObject(content) || !Array.isArray(content['parts']))
      throw refuseGeminiField(at, 'must be a Content with a list of parts');
    const role = content['role'] ?? 'user';
    if (role === 'model') {
      const message = readModelTurn(content['parts'], at, turn);
      open = { calls: [...(message.toolCalls ?? [])], answered: new Set() };
      messages.push(message);
    } else if (role === 'user' || role === 'function') {
      messages.push(...readUserTurn(content['parts'], at, tally, open));
    } else throw refuseGeminiField(`${at}.role`, "must be 'user' or 'model'");
  });
  return messages;
}

function systemText(system: unknown): string | undefined {
  if (system === undefined || system === null) return undefined;
  if (typeof system === 'string') return system;
  if (!isObject(system) || !Array.isArray(system['parts']))
    throw refuseGeminiField('systemInstruction', 'must be a Content with a list of parts');
  const texts: string[] = [];
  system['parts'].forEach((part, index) => {
    if (!isObject(part) || typeof part['text'] !== 'string')
      throw refuseGeminiField(`systemInstruction.parts[${index}]`, 'must be a text part');
    texts.push(part['text']);
  });
  return texts.join('\n');
}

function readModelTurn(parts: unknown[], at: string, turn: number): ChatMessage {
  const content: ContentPart[] = [];
  const thinking: ThinkingPart[] = [];
  const calls: ToolCall[] = [];
  parts.forEach((part, index) => {
    const here = `${at}.parts[${index}]`;
    if (!isObject(part)) throw refuseGeminiField(here, 'must be a Part');
    // Only a token of the gateway's is carried; Google's own signatures mean nothing to another vendor.
    const carried = decodeThoughtToken(part['thoughtSignature']);
    if (carried !== undefined) thinking.push(...carried);
    if (part['thought'] === true) return;
    const call = part['functionCall'];
    if (call !== undefined) {
      if (!isObject(call) || typeof call['name'] !== 'string' || call['name'] === '')
        throw refuseGeminiField(`${here}.functionCall`, 'must have a name');
      const id = typeof call['id'] === 'string' && call['id'] !== '' ? call['id'] : `call_${turn}_${index}`;
      calls.push({ id, name: call['name'], arguments: JSON.stringify(call['args'] ?? {}) });
      return;
    }
    if (typeof part['text'] === 'string') content.push({ type: 'text', text: part['text'] });
  });
  const message: ChatMessage = { role: 'assistant', content: partsText(content, '') };
  if (thinking.length > 0) message.parts = [...thinking, ...content];
  if (calls.length > 0) message.toolCalls = calls;
  return message;
}

function readUserTurn(parts: unknown[], at: string, tally: MediaTally, open: OpenCalls): ChatMessage[] {
  const results: ChatMessage[] = [];
  const content: ContentPart[] = [];
  parts.forEach((part, index) => {
    const here = `${at}.parts[${index}]`;
    if (!isObject(part)) throw refuseGeminiField(here, 'must be a Part');
    if (part['functionResponse'] !== undefined) {
      results.push(readFunctionResponse(part['functionResponse'], `${here}.functionResponse`, open));
      return;
    }
    const read = readUserPart(part, here, tally);
    if (read !== undefined) content.push(read);
  });
  if (content.length === 0) return results;
  const message: ChatMessage = { role: 'user', content: partsText(content, '') };
  if (content.some((part) => part.type !== 'text')) message.parts = content;
  return [...results, message];
}

function readFunctionResponse(value: unknown, at: string, open: OpenCalls): ChatMessage {
  if (!isObject(value) || typeof value['name'] !== 'string')
    throw refuseGeminiField(at, 'must have a name and a response');
  const name = value['name'];
  let id = typeof value['id'] === 'string' && value['id'] !== '' ? value['id'] : undefined;
  if (id === undefined) {
    const call = open.calls.find((candidate) => candidate.name === name && !open.answered.has(candidate.id));
    if (call === undefined)
      throw refuseGeminiField(
        at,
        `answers no functionCall named '${name.slice(0, 64)}' in the turn before it`,
      );
    id = call.id;
  }
  open.answered.add(id);
  return { role: 'tool', toolCallId: id, name, content: JSON.stringify(value['response'] ?? {}) };
}

/**
 * A part's `mimeType`, lower case ('' when absent). Anything but a string is refused: String() of
 * a client's object calls its own `toString` key, and `{"toString": 1}` made that a TypeError, a 500.
 */
function mimeTypeOf(holder: Json, at: string): string {
  const value = holder['mimeType'] ?? '';
  if (typeof value !== 'string') throw refuseGeminiField(`${at}.mimeType`, 'must be a string');
  return value.toLowerCase();
}

function readUserPart(part: Json, at: string, tally: MediaTally): ContentPart | undefined {
  if (typeof part['text'] === 'string')
    return part['thought'] === true ? undefined : { type: 'text', text: part['text'] };
  const inline = part['inlineData'];
  if (isObject(inline)) {
    const mediaType = mimeTypeOf(inline, `${at}.inlineData`);
    const data = inline['data'];
    const bytes = typeof data === 'string' ? base64DecodedBytes(data) : undefined;
    if (typeof data !== 'string' || bytes === undefined)
      throw refuseGeminiField(`${at}.inlineData.data`, 'must be base64');
    const refused = tally.add(bytes);
    if (refused !== undefined) throw refuseGeminiField(`${at}.inlineData`, refused);
    if (IMAGE_MEDIA_TYPES.has(mediaType))
      return { type: 'image', source: { kind: 'base64', mediaType, data } };
    if (mediaType === PDF_MEDIA_TYPE) return { type: 'file', source: { kind: 'base64', mediaType, data } };
    if (mediaType.startsWith('text/'))
      return { type: 'text', text: Buffer.from(data, 'base64').toString('utf8') };
    throw refuseGeminiField(
      `${at}.inlineData.mimeType`,
      `'${mediaType.slice(0, 64)}' cannot be given to this model`,
    );
  }
  const file = part['fileData'];
  if (isObject(file)) {
    const url = file['fileUri'];
    const mediaType = mimeTypeOf(file, `${at}.fileData`);
    if (typeof url !== 'string' || !isPassableUrl(url))
      throw refuseGeminiField(`${at}.fileData.fileUri`, 'must be an https URL on this model');
    const refused = tally.add(0);
    if (refused !== undefined) throw refuseGeminiField(`${at}.fileData`, refused);
    if (mediaType === PDF_MEDIA_TYPE) return { type: 'file', source: { kind: 'url', url, mediaType } };
    return { type: 'image', source: { kind: 'url', url, ...(mediaType === '' ? {} : { mediaType }) } };
  }
  if (part['functionCall'] !== undefined)
    throw refuseGeminiField(`${at}.functionCall`, "belongs in a 'model' turn");
  // executableCode, codeExecutionResult, videoMetadata: nothing another vendor can be given.
  throw refuseGeminiField(
    at,
    'holds no part this model can be given (text, inlineData, fileData, functionResponse)',
  );
}
