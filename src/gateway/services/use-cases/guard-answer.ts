import { ApiError } from '../../../platform/errors.ts';
import type { ToolCall } from '../../domain/messages.ts';
import type { GuardContext } from '../../guardrails/check-texts.ts';
import type { CompiledGuard } from '../../guardrails/compile-guards.ts';
import type { GuardEvent } from '../../guardrails/guard-verdict.ts';
import type { Guardrails, RequestGuards } from '../../guardrails/guardrails.ts';
import { HoldBack, type Released } from '../../guardrails/hold-back.ts';
import { StreamWebhook } from '../../guardrails/stream-webhook.ts';
import type { RequestRun } from '../run/request-run.ts';
import { answerMessage, type ChatAnswer } from './run-chat.ts';
import type { ChatStream, StreamEvent } from './run-chat-stream.ts';

/**
 * The output phase (CONTRACT 6.6) over a chat's answer, whole or streamed, on every door that
 * answers in the gateway's translation: a whole answer's text and tool calls are checked at once
 * (a block is the door's 400); a stream's deltas go through a hold-back window (HoldBack) and,
 * where output webhooks apply, what the window lets go through them (StreamWebhook); its tool
 * calls are checked whole as they come, and `done` carries what went out. A block after the
 * first byte is the stream's error event, the upstream let go and the run's row `guardrail_blocked`.
 */
export async function guardAnswer(
  guardrails: Guardrails,
  guards: RequestGuards | undefined,
  run: RequestRun,
  answer: ChatAnswer | ChatStream,
): Promise<ChatAnswer | ChatStream> {
  if (guards === undefined || guards.output.length === 0) return answer;
  const context = { ...guards.context, model: 'start' in answer ? answer.start.model : answer.model };
  if ('start' in answer) {
    const { start, events } = answer;
    return { start, events: guardEvents(guardrails, guards, run, events, context) };
  }
  const calls = answer.message.toolCalls ?? [];
  const verdict = await guardrails.checkNow(
    'output',
    guards.output,
    [answer.message.content, ...calls.map((call) => call.arguments)],
    context,
  );
  if (verdict.events.length > 0) run.guardrails.events.push(...verdict.events);
  if (verdict.blockedBy !== undefined) throw blockedAnswer(verdict.blockedBy);
  if (!verdict.changed) return answer;
  const [content = '', ...args] = verdict.texts;
  return { ...answer, message: answerMessage(content, maskedCalls(calls, args)) };
}

async function* guardEvents(
  guardrails: Guardrails,
  guards: RequestGuards,
  run: RequestRun,
  events: AsyncGenerator<StreamEvent, void, undefined>,
  context: GuardContext,
): AsyncGenerator<StreamEvent, void, undefined> {
  const holdBack = new HoldBack(guards.output, guards.outputWindow);
  const hooks = guards.output.filter((guard) => guard.webhook !== undefined);
  // The output webhooks see what the window lets go, a call at a time (stream-webhook.ts).
  const webhook =
    hooks.length === 0
      ? undefined
      : new StreamWebhook(
          (text) => guardrails.check('output', hooks, [text], context, false),
          (hooks[0] as CompiledGuard).name,
        );
  const calls: ToolCall[] = [];
  let sent = '';
  /** Hands the run what the window's guards did so far (it may finish before `done` reaches us). */
  const note = (from: { events: GuardEvent[] }) => {
    const noted = from.events.splice(0);
    run.guardrails.events.push(...noted);
    guardrails.count({ events: noted });
  };
  const stop = (guard: string): StreamEvent => {
    const error = blockedAnswer(guard);
    run.guardrails.blocked = error;
    return { event: 'error', data: error.toEnvelope() };
  };
  /** What the webhook answered so far, as the next delta (or its block). */
  const checked = (): { delta: StreamEvent | undefined; blockedBy: string | undefined } => {
    const ready = (webhook as StreamWebhook).take();
    note(webhook as StreamWebhook);
    if (ready.blockedBy !== undefined) return { delta: undefined, blockedBy: ready.blockedBy };
    sent += ready.text;
    return {
      delta: ready.text === '' ? undefined : { event: 'delta', data: { content: ready.text } },
      blockedBy: undefined,
    };
  };
  let settled: Released | undefined;
  let unsent = '';
  // The upstream's end finishes the run before `done` comes out of it: what the window held is
  // judged then, so that the row has it (and a block in it), and sent with the next event. With
  // an output webhook, the row waits for its verdict on that last piece.
  const settle = (): Released => {
    if (settled !== undefined) return settled;
    settled = holdBack.flush();
    note(holdBack);
    if (settled.blockedBy !== undefined) run.guardrails.blocked ??= blockedAnswer(settled.blockedBy);
    else if (webhook !== undefined) webhook.add(settled.text);
    else unsent += settled.text;
    return settled;
  };
  run.guardrails.settle = () => {
    const last = settle();
    if (webhook === undefined || last.blockedBy !== undefined) return;
    return webhook.drain().then(() => {
      note(webhook);
      if (webhook.blockedBy !== undefined) run.guardrails.blocked ??= blockedAnswer(webhook.blockedBy);
    });
  };
  const iterator = events[Symbol.asyncIterator]();
  let upstream: Promise<IteratorResult<StreamEvent, void>> | undefined;
  try {
    for (;;) {
      upstream ??= iterator.next();
      // With a webhook call out, whichever comes first: its answer goes out without waiting for
      // the upstream's next event.
      const call = webhook?.pending;
      const step: IteratorResult<StreamEvent, void> | typeof WOKEN =
        call === undefined
          ? await upstream
          : await Promise.race([upstream, call.then((): typeof WOKEN => WOKEN)]);
      if (step === WOKEN) {
        const ready = checked();
        if (ready.blockedBy !== undefined) {
          yield stop(ready.blockedBy);
          return;
        }
        if (ready.delta !== undefined) yield ready.delta;
        continue;
      }
      upstream = undefined;
      if (step.done === true) return;
      const event = step.value;
      if (event.event === 'delta') {
        if (settled !== undefined && settled.blockedBy === undefined) {
          settled = undefined;
          holdBack.reopen();
        }
        const released = holdBack.push(event.data.content);
        note(holdBack);
        if (released.blockedBy !== undefined) {
          yield stop(released.blockedBy);
          return;
        }
        if (webhook !== undefined) {
          webhook.add(released.text);
          const ready = checked();
          if (ready.blockedBy !== undefined) {
            yield stop(ready.blockedBy);
            return;
          }
          if (ready.delta !== undefined) yield ready.delta;
          continue;
        }
        sent += released.text;
        if (released.text !== '') yield { event: 'delta', data: { content: released.text } };
        continue;
      }
      if (event.event === 'thinking') {
        yield event;
        continue;
      }
      // A tool call, the end or a failure: what the window held goes out first.
      const last = settle();
      if (last.blockedBy !== undefined) {
        yield stop(last.blockedBy);
        return;
      }
      if (webhook !== undefined) {
        await webhook.drain();
        const ready = checked();
        if (ready.blockedBy !== undefined) {
          yield stop(ready.blockedBy);
          return;
        }
        if (ready.delta !== undefined) yield ready.delta;
      }
      if (unsent !== '') {
        sent += unsent;
        yield { event: 'delta', data: { content: unsent } };
        unsent = '';
      }
      if (event.event === 'tool_call') {
        const callGuard = new HoldBack(guards.output, guards.outputWindow);
        const verdict = runCheck(callGuard, [event.data.arguments]);
        note(callGuard);
        if (verdict.blockedBy !== undefined) {
          yield stop(verdict.blockedBy);
          return;
        }
        let args = verdict.text;
        if (hooks.length > 0) {
          const hooked = await guardrails.check('output', hooks, [args], context);
          run.guardrails.events.push(...hooked.events);
          if (hooked.blockedBy !== undefined) {
            yield stop(hooked.blockedBy);
            return;
          }
          args = hooked.texts[0] ?? args;
        }
        const call = { ...event.data, arguments: args };
        calls.push(call);
        yield { event: 'tool_call', data: call };
        continue;
      }
      if (event.event === 'done') {
        const toolCalls = calls.length > 0 ? calls : event.data.message.toolCalls;
        yield { event: 'done', data: { ...event.data, message: answerMessage(sent, toolCalls) } };
        continue;
      }
      yield event;
    }
  } finally {
    // Lets the upstream go (after its pending read, if one is out: not awaited, so a block goes
    // out at once).
    if (upstream === undefined) await iterator.return?.(undefined);
    else void upstream.then(() => iterator.return?.(undefined)).catch(() => {});
  }
}

/** The race's mark for a webhook call that answered before the upstream's next event. */
const WOKEN: unique symbol = Symbol('woken');

/** A tool call's arguments arrive whole: checked as a stream of one piece. */
function runCheck(
  holdBack: HoldBack,
  texts: readonly string[],
): { text: string; blockedBy: string | undefined } {
  let text = '';
  for (const piece of texts) text += holdBack.push(piece).text;
  const rest = holdBack.flush();
  return { text: text + rest.text, blockedBy: holdBack.blockedBy };
}

function maskedCalls(calls: readonly ToolCall[], args: readonly string[]): ToolCall[] {
  return calls.map((call, index) => ({ ...call, arguments: args[index] ?? call.arguments }));
}

/** The answer's block: the door's 400 before the first byte, its error event after it. */
export function blockedAnswer(guard: string): ApiError {
  return new ApiError('guardrail_blocked', `guardrail_blocked: the guard '${guard}' blocked this answer`, {
    details: { guard, phase: 'output' },
  });
}
