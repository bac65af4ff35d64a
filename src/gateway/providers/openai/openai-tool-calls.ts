import type { ProviderSlot } from '../../../config/config-types.ts';
import { isRecord } from '../json-guards.ts';
import type { ToolCall } from '../provider.ts';
import { MAX_STREAMED_TOOL_CALLS, MAX_TOOL_ARGUMENT_CHARS } from '../tool-arguments.ts';
import { invalidResponse } from './openai-error.ts';

/**
 * The id of a call the upstream gave none for (some compatible servers omit it, and the deprecated
 * `function_call` never had one): made from the completion's id and the call's position, so the
 * same answer always yields the same ids and a caller can still pair its result with the call.
 */
export function fallbackCallId(completionId: unknown, index: number): string {
  const base = typeof completionId === 'string' && completionId !== '' ? completionId : 'completion';
  return `call_${base}_${index}`;
}

/**
 * `message.tool_calls` (and the deprecated `message.function_call`) of a completion, in order.
 * `arguments` is kept as the text the model wrote; a server that sends it as an object (some
 * compatible servers do) has it serialised back to JSON text.
 */
export function readMessageToolCalls(
  slot: ProviderSlot,
  message: Record<string, unknown>,
  completionId: unknown,
): ToolCall[] {
  const calls: ToolCall[] = [];
  const list = message['tool_calls'];
  if (Array.isArray(list)) {
    for (const [index, item] of list.entries()) {
      if (!isRecord(item) || !isRecord(item['function'])) {
        throw invalidResponse(slot, 'tool call has no function');
      }
      calls.push(readFunction(slot, item['function'], idOr(item['id'], completionId, index)));
    }
  } else if (list !== undefined && list !== null) {
    throw invalidResponse(slot, 'tool_calls is not a list');
  }
  const legacy = message['function_call'];
  if (calls.length === 0 && isRecord(legacy)) {
    calls.push(readFunction(slot, legacy, fallbackCallId(completionId, 0)));
  }
  return calls;
}

function readFunction(slot: ProviderSlot, fn: Record<string, unknown>, id: string): ToolCall {
  const name = fn['name'];
  if (typeof name !== 'string' || name === '') throw invalidResponse(slot, 'tool call has no name');
  return { id, name, arguments: argumentsText(fn['arguments']) };
}

function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value) ?? '';
}

function idOr(id: unknown, completionId: unknown, index: number): string {
  return typeof id === 'string' && id !== '' ? id : fallbackCallId(completionId, index);
}

interface PartialCall {
  id: string | undefined;
  name: string;
  arguments: string;
}

/**
 * Assembles streamed `delta.tool_calls` fragments into whole calls. Each fragment names its call by
 * `index`; the first fragment of a call carries its `id` and `function.name`, later ones only
 * pieces of `function.arguments`, to be concatenated, and fragments of parallel calls may
 * interleave. A fragment without an `index` (some compatible servers send each call whole) is a new
 * call when it brings an id or a name, else it continues the last call. The deprecated
 * `delta.function_call` is one call of its own.
 */
export class OpenAIToolCallAssembler {
  readonly #slot: ProviderSlot;
  readonly #calls = new Map<number, PartialCall>();
  #lastKey: number | undefined;
  #chars = 0;

  constructor(slot: ProviderSlot) {
    this.#slot = slot;
  }

  get pending(): boolean {
    return this.#calls.size > 0;
  }

  /** Reads the tool fragments of one chunk's `delta`. */
  add(delta: Record<string, unknown>): void {
    const fragments = delta['tool_calls'];
    if (Array.isArray(fragments)) {
      for (const fragment of fragments) {
        if (!isRecord(fragment)) throw invalidResponse(this.#slot, 'tool call fragment is not an object');
        this.#addFragment(keyOf(fragment, this.#lastKey, this.#calls.size), fragment, fragment['function']);
      }
    } else if (fragments !== undefined && fragments !== null) {
      throw invalidResponse(this.#slot, 'delta tool_calls is not a list');
    }
    const legacy = delta['function_call'];
    if (isRecord(legacy)) this.#addFragment(-1, {}, legacy);
  }

  /** The assembled calls in index order, forgotten once taken. */
  take(completionId: unknown): ToolCall[] {
    const keys = [...this.#calls.keys()].sort((a, b) => a - b);
    const calls = keys.map((key, position) => {
      const call = this.#calls.get(key) as PartialCall;
      if (call.name === '') throw invalidResponse(this.#slot, 'streamed tool call has no name');
      return {
        id: call.id ?? fallbackCallId(completionId, position),
        name: call.name,
        arguments: call.arguments,
      };
    });
    this.#calls.clear();
    this.#lastKey = undefined;
    return calls;
  }

  #addFragment(key: number, fragment: Record<string, unknown>, fn: unknown): void {
    let call = this.#calls.get(key);
    if (call === undefined) {
      if (this.#calls.size >= MAX_STREAMED_TOOL_CALLS) {
        throw invalidResponse(this.#slot, `more than ${MAX_STREAMED_TOOL_CALLS} tool calls in one answer`);
      }
      call = { id: undefined, name: '', arguments: '' };
      this.#calls.set(key, call);
    }
    this.#lastKey = key;
    const id = fragment['id'];
    if (typeof id === 'string' && id !== '' && call.id === undefined) call.id = id;
    if (!isRecord(fn)) return;
    const name = fn['name'];
    // The name comes whole in the first fragment; a server repeating it must not double it.
    if (typeof name === 'string' && name !== '' && call.name === '') call.name = name;
    const piece = argumentsText(fn['arguments']);
    this.#chars += piece.length;
    if (this.#chars > MAX_TOOL_ARGUMENT_CHARS) {
      throw invalidResponse(
        this.#slot,
        `tool call arguments longer than ${MAX_TOOL_ARGUMENT_CHARS} characters`,
      );
    }
    call.arguments += piece;
  }
}

function keyOf(fragment: Record<string, unknown>, lastKey: number | undefined, size: number): number {
  const index = fragment['index'];
  if (typeof index === 'number' && Number.isInteger(index) && index >= 0) return index;
  const fn = fragment['function'];
  const startsCall =
    (typeof fragment['id'] === 'string' && fragment['id'] !== '') ||
    (isRecord(fn) && typeof fn['name'] === 'string' && fn['name'] !== '');
  // Keys past every real index, so index-less calls never collide with indexed ones.
  if (startsCall || lastKey === undefined) return 1_000_000 + size;
  return lastKey;
}
