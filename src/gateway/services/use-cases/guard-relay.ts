import type { Guardrails, RequestGuards } from '../../guardrails/guardrails.ts';
import { HoldBack } from '../../guardrails/hold-back.ts';
import type { RelayOut } from '../run/pass-through-stream.ts';
import type { RequestRun } from '../run/request-run.ts';
import { blockedAnswer } from './guard-answer.ts';

/*
 * The output phase on the Anthropic door's same-vendor lane (CONTRACT 6.6): where an output
 * guard applies, the upstream's text (`text_delta`, and a tool's `input_json_delta`) is read out
 * of its events and put through a hold-back window per content block; an event whose text changed
 * is written again (its JSON re-encoded), one whose text is all held back is left out, and what a
 * block held goes out before its `content_block_stop`. Every other event passes as it came.
 * Without output guards none of this runs and the lane stays byte for byte.
 */

interface BlockDelta {
  type: 'content_block_delta';
  index: number;
  delta: { type: string; text?: string; partial_json?: string };
}

export async function* guardRelayEvents(
  guardrails: Guardrails,
  guards: RequestGuards,
  run: RequestRun,
  events: AsyncGenerator<RelayOut, void, undefined>,
): AsyncGenerator<RelayOut, void, undefined> {
  const windows = new Map<number, { holdBack: HoldBack; field: 'text' | 'partial_json' }>();
  const stop = (guard: string): RelayOut => {
    const error = blockedAnswer(guard);
    run.guardrails.blocked = error;
    return { kind: 'error', error: error.toEnvelope() };
  };
  try {
    for await (const out of events) {
      if (
        out.kind !== 'event' ||
        (out.event !== 'content_block_delta' && out.event !== 'content_block_stop')
      ) {
        yield out;
        continue;
      }
      const parsed = JSON.parse(out.data) as BlockDelta;
      if (out.event === 'content_block_stop') {
        const open = windows.get(parsed.index);
        windows.delete(parsed.index);
        if (open !== undefined) {
          const rest = open.holdBack.flush();
          record(guardrails, run, open.holdBack);
          if (rest.blockedBy !== undefined) {
            yield stop(rest.blockedBy);
            return;
          }
          if (rest.text !== '') yield deltaEvent(parsed.index, open.field, rest.text);
        }
        yield out;
        continue;
      }
      const field =
        parsed.delta.type === 'text_delta'
          ? 'text'
          : parsed.delta.type === 'input_json_delta'
            ? 'partial_json'
            : undefined;
      const text = field === undefined ? undefined : parsed.delta[field];
      if (field === undefined || typeof text !== 'string') {
        yield out;
        continue;
      }
      let open = windows.get(parsed.index);
      if (open === undefined) {
        open = { holdBack: new HoldBack(guards.output, guards.outputWindow), field };
        windows.set(parsed.index, open);
      }
      const released = open.holdBack.push(text);
      if (released.blockedBy !== undefined) {
        record(guardrails, run, open.holdBack);
        yield stop(released.blockedBy);
        return;
      }
      if (released.text === text) yield out;
      else if (released.text !== '') yield deltaEvent(parsed.index, field, released.text);
    }
  } finally {
    for (const open of windows.values()) record(guardrails, run, open.holdBack);
  }
}

function deltaEvent(index: number, field: 'text' | 'partial_json', text: string): RelayOut {
  const delta =
    field === 'text' ? { type: 'text_delta', text } : { type: 'input_json_delta', partial_json: text };
  return {
    kind: 'event',
    event: 'content_block_delta',
    data: JSON.stringify({ type: 'content_block_delta', index, delta }),
  };
}

function record(guardrails: Guardrails, run: RequestRun, holdBack: HoldBack): void {
  const events = holdBack.events.splice(0);
  run.guardrails.events.push(...events);
  guardrails.count({ events });
}

/**
 * A whole relayed Message: its text blocks and tool inputs checked; the upstream's bytes as they
 * came when nothing acted or only logged, the Message written again when a mask changed it.
 * A block is the door's 400.
 */
export async function guardRelayedMessage(
  guardrails: Guardrails,
  guards: RequestGuards,
  run: RequestRun,
  text: string,
): Promise<string> {
  const message = JSON.parse(text) as { content?: { type: string; text?: string; input?: unknown }[] };
  const blocks = message.content ?? [];
  const texts = blocks.map((block) =>
    block.type === 'text'
      ? (block.text ?? '')
      : block.type === 'tool_use'
        ? JSON.stringify(block.input ?? {})
        : '',
  );
  const verdict = await guardrails.checkNow('output', guards.output, texts, guards.context);
  run.guardrails.events.push(...verdict.events);
  if (verdict.blockedBy !== undefined) throw blockedAnswer(verdict.blockedBy);
  if (!verdict.changed) return text;
  blocks.forEach((block, index) => {
    const masked = verdict.texts[index] as string;
    if (masked === texts[index]) return;
    if (block.type === 'text') block.text = masked;
    else block.input = parseOr(masked, block.input);
  });
  return JSON.stringify(message);
}

function parseOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}
