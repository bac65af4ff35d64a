import { rememberTopLevelIndex } from '../../domain/json-splice.ts';
import {
  documentSpan,
  type IndexedValue,
  indexValue,
  parseSpan,
  standInAt,
  type ValueSpan,
} from '../../domain/json-top-level.ts';
import type { PassThroughRequest } from '../chat-door.ts';
import { promptTexts, readRelayRequest } from './read-relay-request.ts';

/**
 * A `POST /v1/messages` body read lightly from its bytes (already checked to be JSON), for the
 * same-vendor lane: what readRelayRequest reads of the parsed body, without parsing it. The checks
 * are readRelayRequest's own, run on the body's skeleton: the fields routing needs parsed (`model`,
 * `max_tokens`, `stream`, `metadata`, each message's `role`), every other value that is checked
 * only for its kind (the system prompt, a message's content and blocks, the tools) stood in for by
 * an empty value of that kind, so the 400s are the same for the same body. The prompt's texts,
 * which only an app with limits or an answer without usage needs, are read when asked, from the
 * `system`, `messages` and `tools` values alone. A key given twice counts as its last, as
 * JSON.parse keeps it (json-top-level.ts).
 */
export function readRelayBytes(bytes: Buffer): PassThroughRequest {
  const document = documentSpan(bytes);
  // One walk, four levels down (the body, `messages`, each message, its content's blocks): the
  // prompt's long strings are passed once. Its top level is the index the splice of `model` uses.
  const tree = document === undefined ? undefined : indexValue(bytes, document, 4);
  const members = tree?.members;
  if (members === undefined || document === undefined)
    return {
      ...readRelayRequest(document === undefined ? undefined : standInAt(bytes, document)),
      texts: () => [],
    };
  rememberTopLevelIndex(bytes, members);
  const skeleton: Record<string, unknown> = {};
  for (const [key, value] of members) {
    if (key === 'messages') skeleton[key] = messagesSkeleton(bytes, value);
    else if (key === 'tools') skeleton[key] = value.elements?.map(() => null) ?? standInAt(bytes, value);
    else if (key === 'system') skeleton[key] = standInAt(bytes, value);
    else if (READ_WHOLE.has(key)) skeleton[key] = parseSpan(bytes, value);
  }
  const read = readRelayRequest(skeleton);
  let texts: string[] | undefined;
  return {
    ...read,
    texts: () => {
      texts ??= promptTexts(PROMPT_FIELDS.map((key) => parseMember(bytes, members.get(key))));
      return texts;
    },
  };
}

/** The top-level fields read as they are: routing, limits and the records need their values. */
const READ_WHOLE = new Set(['model', 'max_tokens', 'stream', 'metadata']);

/** Where the prompt's texts are (readRelayRequest's order). */
const PROMPT_FIELDS = ['system', 'messages', 'tools'];

function parseMember(bytes: Buffer, span: ValueSpan | undefined): unknown {
  return span === undefined ? undefined : parseSpan(bytes, span);
}

/** Each message with its `role` read and its `content` stood in for (an array: each block by its kind). */
function messagesSkeleton(bytes: Buffer, messages: IndexedValue): unknown {
  if (messages.elements === undefined) return standInAt(bytes, messages);
  return messages.elements.map((message) => {
    if (message.members === undefined) return standInAt(bytes, message);
    const skeleton: Record<string, unknown> = {};
    const role = message.members.get('role');
    if (role !== undefined) skeleton['role'] = parseSpan(bytes, role);
    const content = message.members.get('content');
    if (content !== undefined)
      skeleton['content'] =
        content.elements?.map((block) => standInAt(bytes, block)) ?? standInAt(bytes, content);
    return skeleton;
  });
}
