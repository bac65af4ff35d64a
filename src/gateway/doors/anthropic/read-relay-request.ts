import type { SessionFields } from '../../domain/session-key.ts';
import {
  type FieldPath,
  invalidField,
  isObject,
  type JsonObject,
  missingField,
  optional,
  readArray,
  readBoolean,
  readInteger,
  readNonEmptyString,
  readObject,
} from '../request-fields.ts';

/**
 * A `POST /v1/messages` body read only as far as the gateway needs it whatever slot serves it
 * (CONTRACT 5.2): the fields that route, limit and account it. Everything else is the upstream's
 * to judge on the same-vendor lane, which sends the body as it came: a block type, a beta field or
 * a tool type the gateway does not know is no reason to refuse it. An attempt on a slot of another
 * kind reads the whole body first (read-messages-request.ts), which refuses what it cannot carry.
 */
export interface RelayRequest {
  model: string;
  maxTokens: number;
  stream: boolean;
  /** The body has tools: planning skips slots that cannot call them. */
  tools: boolean;
  /** The texts of the system prompt, the messages and the tools: the limits' guess (images' bytes left out). */
  texts: string[];
  metadata: JsonObject | undefined;
  session: SessionFields;
}

/** Longest `model` accepted, as on the cross-vendor reading. */
const MAX_MODEL_LENGTH = 256;

/** Properties whose strings are no text a model reads as tokens of the prompt: bytes, signatures, names of kinds. */
const NOT_PROMPT_TEXT = new Set([
  'data',
  'signature',
  'type',
  'role',
  'media_type',
  'cache_control',
  'id',
  'tool_use_id',
]);

export function readRelayRequest(body: unknown): RelayRequest {
  const object = readObject(body, []);
  const model = readRequired(object, 'model', readNonEmptyString);
  if (model.length > MAX_MODEL_LENGTH)
    throw invalidField(['model'], `must be at most ${MAX_MODEL_LENGTH} characters`);
  const maxTokens = readRequired(object, 'max_tokens', (value, path) => readInteger(value, path, 1));
  const messages = readRequired(object, 'messages', readArray);
  messages.forEach((message, index) => {
    checkMessage(message, ['messages', index]);
  });
  const system = object.system;
  if (system !== undefined && system !== null && typeof system !== 'string') readArray(system, ['system']);
  const tools = optional(object, 'tools', [], readArray) ?? [];
  const metadata = isObject(object.metadata) ? object.metadata : undefined;
  return {
    model,
    maxTokens,
    stream: optional(object, 'stream', [], readBoolean) ?? false,
    tools: tools.length > 0,
    texts: promptTexts([system, messages, tools]),
    metadata,
    session: { userId: metadata?.user_id },
  };
}

function readRequired<T>(object: JsonObject, field: string, read: (value: unknown, path: FieldPath) => T): T {
  if (!Object.hasOwn(object, field) || object[field] === null) throw missingField([], field);
  return read(object[field], [field]);
}

/** A message is an object with a `role` and a `content` that is a string or an array of blocks (objects). */
function checkMessage(message: unknown, path: FieldPath): void {
  const object = readObject(message, path);
  if (!Object.hasOwn(object, 'role') || object.role === null) throw missingField(path, 'role');
  readNonEmptyString(object.role, [...path, 'role']);
  if (!Object.hasOwn(object, 'content') || object.content === null) throw missingField(path, 'content');
  const content = object.content;
  if (typeof content === 'string') return;
  readArray(content, [...path, 'content']).forEach((block, index) => {
    readObject(block, [...path, 'content', index]);
  });
}

/**
 * Every string under the given values but those of NOT_PROMPT_TEXT's properties, walked with a
 * stack of its own: a body nested as deep as its size allows cannot overflow the call stack.
 */
export function promptTexts(roots: readonly unknown[]): string[] {
  const texts: string[] = [];
  const stack: unknown[] = [...roots];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) for (const item of value) stack.push(item);
    else if (isObject(value)) {
      for (const [key, inner] of Object.entries(value)) if (!NOT_PROMPT_TEXT.has(key)) stack.push(inner);
    }
  }
  return texts;
}
