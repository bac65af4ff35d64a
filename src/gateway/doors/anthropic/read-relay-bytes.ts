import { topLevelIndex } from '../../domain/json-splice.ts';
import {
  documentSpan,
  elementsOf,
  membersOf,
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
  // The index the splice of `model` finds again for these bytes (json-splice.ts keeps it).
  const members = topLevelIndex(bytes);
  if (members === undefined || document === undefined)
    return {
      ...readRelayRequest(document === undefined ? undefined : standInAt(bytes, document)),
      texts: () => [],
    };
  const skeleton: Record<string, unknown> = {};
  for (const [key, span] of members) {
    if (key === 'messages') skeleton[key] = messagesSkeleton(bytes, span);
    else if (key === 'tools')
      skeleton[key] = elementsOf(bytes, span)?.map(() => null) ?? standInAt(bytes, span);
    else if (key === 'system') skeleton[key] = standInAt(bytes, span);
    else if (READ_WHOLE.has(key)) skeleton[key] = parseSpan(bytes, span);
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
function messagesSkeleton(bytes: Buffer, span: ValueSpan): unknown {
  const messages = elementsOf(bytes, span);
  if (messages === undefined) return standInAt(bytes, span);
  return messages.map((message) => {
    const members = membersOf(bytes, message);
    if (members === undefined) return standInAt(bytes, message);
    const skeleton: Record<string, unknown> = {};
    const role = members.get('role');
    if (role !== undefined) skeleton['role'] = parseSpan(bytes, role);
    const content = members.get('content');
    if (content !== undefined)
      skeleton['content'] =
        elementsOf(bytes, content)?.map((block) => standInAt(bytes, block)) ?? standInAt(bytes, content);
    return skeleton;
  });
}
