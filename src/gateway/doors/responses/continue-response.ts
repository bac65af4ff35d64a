import type { RememberedResponse } from '../../services/use-cases/response-memory.ts';
import { refuseField } from '../openai-refusal.ts';
import { isObject, type JsonObject } from '../request-fields.ts';

/** Reads a stored response of the app (the door's ResponseMemory). */
export type Recall = (id: string) => Promise<RememberedResponse | undefined>;

const MAX_ID_LENGTH = 128;

/** The input as a list of items: a string is one user message. */
export function inputItemsOf(input: unknown): unknown[] {
  if (typeof input === 'string') {
    return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  }
  return Array.isArray(input) ? input : [];
}

/**
 * A body with `previous_response_id` continued from the stored response it names (CONTRACT
 * 5.4): the conversation that response answered, its output, then the new input, as one list of
 * items (its `instructions` are not carried over, as OpenAI does). An id that no response of the
 * app was stored under (never, with `store: false`, another app's, or expired) is a 400 naming
 * the field. A body without one is returned as it is.
 */
export async function continueResponse(body: unknown, recall: Recall): Promise<unknown> {
  if (!isObject(body)) return body;
  const previous = body['previous_response_id'];
  if (previous === undefined || previous === null) return body;
  if (typeof previous !== 'string' || previous === '' || previous.length > MAX_ID_LENGTH) {
    throw refuseField('/previous_response_id', 'must be a response id');
  }
  const stored = await recall(previous);
  if (stored === undefined) {
    throw refuseField(
      '/previous_response_id',
      `no stored response '${previous}' for this app: only responses created with store: true are kept, until they expire`,
    );
  }
  const output = Array.isArray(stored.response['output']) ? stored.response['output'] : [];
  const input = [...stored.inputItems, ...output, ...inputItemsOf(body['input'])];
  return { ...body, input } satisfies JsonObject;
}

/** Whether a conversation to store fits the bound (its items as JSON bytes); a 400 otherwise. */
export function checkStorable(body: unknown, maxBytes: number): void {
  if (!isObject(body) || body['store'] !== true) return;
  const bytes = Buffer.byteLength(JSON.stringify(body['input'] ?? []));
  if (bytes > maxBytes) {
    throw refuseField(
      '/store',
      `the conversation is ${bytes} bytes, more than the ${maxBytes} a stored response may keep: send store: false and the whole input`,
    );
  }
}
