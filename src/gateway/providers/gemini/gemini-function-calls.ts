import type { ProviderSlot } from '../../../config/config-types.ts';
import { isRecord } from '../json-guards.ts';
import type { ToolCall } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { encodeSignedCallId } from './signed-call-id.ts';

/** A functionCall part as read, before ids are settled: Gemini may or may not give an `id`. */
export interface ReadFunctionCall {
  id: string | undefined;
  name: string;
  arguments: string;
  /**
   * The part's `thoughtSignature`. Gemini 3 signs the first functionCall part of every answer with
   * calls (the others of a parallel set carry none) and wants it back on that part.
   */
  thoughtSignature: string | undefined;
}

/** Reads one content part's `functionCall`, or undefined when the part is not one. */
export function readFunctionCallPart(
  part: Record<string, unknown>,
  slot: ProviderSlot,
): ReadFunctionCall | undefined {
  const call = part['functionCall'];
  if (call === undefined) return undefined;
  if (!isRecord(call)) throw invalid(slot, 'functionCall is not an object');
  const name = call['name'];
  if (typeof name !== 'string' || name === '') throw invalid(slot, 'functionCall has no name');
  const args = call['args'];
  if (args !== undefined && !isRecord(args)) throw invalid(slot, 'functionCall args is not an object');
  const id = call['id'];
  // An unreadable signature is no signature: the call is still good, and is replayed with the
  // documented stand-in (to-gemini-request.ts).
  const signature = part['thoughtSignature'];
  return {
    id: typeof id === 'string' && id !== '' ? id : undefined,
    name,
    arguments: JSON.stringify(args ?? {}),
    thoughtSignature: typeof signature === 'string' && signature !== '' ? signature : undefined,
  };
}

/**
 * Settles a call's id. Gemini's own `id` is used when it gave one (newer models do). Otherwise
 * the id is made from the response's `responseId` (or, lacking one, the gateway's request id) and
 * the call's position in the answer: deterministic for one answer, unique across the turns of a
 * conversation, and what the caller sends back as `toolCallId`, so the result can be paired with
 * the call (see to-gemini-request.ts, which looks the name up by this id). The base keeps only
 * characters every vendor accepts in a call id (Anthropic allows `^[a-zA-Z0-9_-]+$`), so the call
 * can later be replayed to any provider kind.
 *
 * A signed call's id also carries its thought signature (signed-call-id.ts): the client echoes the
 * id on the next turn, and the signature goes back to Gemini on the same call.
 */
export function settleCallId(call: ReadFunctionCall, idBase: string, position: number): ToolCall {
  const base = idBase.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  const id = call.id ?? `call_${base}_${position}`;
  return {
    id: call.thoughtSignature === undefined ? id : encodeSignedCallId(id, call.thoughtSignature),
    name: call.name,
    arguments: call.arguments,
  };
}

function invalid(slot: ProviderSlot, detail: string): ProviderError {
  return new ProviderError({ slot, failure: 'invalid_response', detail });
}
