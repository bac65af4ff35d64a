/**
 * The texts of a request body that go upstream, whatever the door's wire format: every string
 * value of the parsed JSON except under keys that hold no prose (identifiers, enums, the model,
 * tool definitions and schemas, kept metadata) or bytes (base64 images and documents, URLs,
 * signed thinking and reasoning, whose signatures a mask would break). So the native API's
 * messages, OpenAI's `tool` messages and parts, Anthropic's `system`, text and `tool_result`
 * blocks and `tool_use` inputs, the Responses API's `instructions`, `input` items and
 * `function_call_output`, Gemini's `parts` and `functionResponse`, and embeddings' `input` are
 * all read by one walk. Depth is bounded by the body parser (128 levels).
 */

/** Keys whose values are never prose that goes upstream as the client's content. */
const SKIPPED_KEYS = new Set([
  'model',
  'type',
  'role',
  'id',
  'tool_use_id',
  'tool_call_id',
  'call_id',
  'previous_response_id',
  'signature',
  'thoughtSignature',
  'encrypted_content',
  'redacted_thinking',
  'cache_control',
  'metadata',
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'service_tier',
  'tools',
  'tool_choice',
  'response_format',
  'schema',
  'stream_options',
  'image_url',
  'file_data',
  'file_id',
  'url',
  'inlineData',
  'inline_data',
  'fileData',
  'media_type',
  'mimeType',
  'safetySettings',
  'generationConfig',
]);

/** Block types whose content is signed by a vendor or is the model's own reasoning. */
const SKIPPED_BLOCKS = new Set(['thinking', 'redacted_thinking', 'reasoning']);

/** Where a text sits, so a masked text can be written back. */
export interface TextSlot {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
}

/** Every text slot of `body`, in document order, and the texts themselves. */
export function collectBodyTexts(body: unknown): { slots: TextSlot[]; texts: string[] } {
  const slots: TextSlot[] = [];
  const texts: string[] = [];
  walk(body, slots, texts);
  return { slots, texts };
}

function walk(value: unknown, slots: TextSlot[], texts: string[]): void {
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item = value[index];
      if (typeof item === 'string') {
        slots.push({ holder: value, key: index });
        texts.push(item);
      } else if (typeof item === 'object' && item !== null) walk(item, slots, texts);
    }
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const object = value as Record<string, unknown>;
  const type = object.type;
  if (typeof type === 'string' && SKIPPED_BLOCKS.has(type)) return;
  for (const key of Object.keys(object)) {
    if (SKIPPED_KEYS.has(key)) continue;
    const item = object[key];
    // A document's `data` is prose only in a text source; elsewhere it is base64.
    if (key === 'data' && type !== 'text') continue;
    if (typeof item === 'string') {
      slots.push({ holder: object, key });
      texts.push(item);
    } else if (typeof item === 'object' && item !== null) walk(item, slots, texts);
  }
}

/** Writes masked texts back where they were read (only those that changed). */
export function writeBodyTexts(
  slots: readonly TextSlot[],
  before: readonly string[],
  after: readonly string[],
): void {
  for (let index = 0; index < slots.length; index++) {
    if (before[index] === after[index]) continue;
    const slot = slots[index] as TextSlot;
    (slot.holder as Record<string | number, unknown>)[slot.key] = after[index];
  }
}
