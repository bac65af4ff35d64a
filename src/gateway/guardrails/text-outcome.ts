import type { GuardPhase } from '../../config/guardrail-settings.ts';
import type { CompiledGuard } from './compile-guards.ts';
import type { Finding } from './finding.ts';
import type { GuardEvent, GuardVerdict } from './guard-verdict.ts';
import { maskText } from './mask-text.ts';

/**
 * What a stretch of detector guards did to one text: the guards that acted (their indexes, in
 * order), the first that blocked (-1 for none), and the text after the masks (undefined when no
 * mask changed it). A text's outcome depends on that text and the guards alone, so it can be
 * computed anywhere (the scan thread) and kept (the scan cache: an agent sends its history again
 * on every turn), and the request's verdict is put together from its texts' outcomes.
 */
export interface TextOutcome {
  acted: number[];
  blockedAt: number;
  masked: string | undefined;
}

/** The guards, in order, over one text: each sees what the masks before it left. */
export function textOutcome(guards: readonly CompiledGuard[], text: string): TextOutcome {
  let current = text;
  let masked: string | undefined;
  const acted: number[] = [];
  const found: Finding[] = [];
  for (let index = 0; index < guards.length; index++) {
    const guard = guards[index] as CompiledGuard;
    found.length = 0;
    guard.detector?.(current, found);
    if (found.length === 0) continue;
    acted.push(index);
    if (guard.action === 'block') return { acted, blockedAt: index, masked };
    if (guard.action === 'mask') {
      current = maskText(current, found);
      masked = current;
    }
  }
  return { acted, blockedAt: -1, masked };
}

/**
 * The verdict of the guards over every text, from each text's outcome: what `runDetectorGuards`
 * answers (the guards in order over all the texts; a block stops the guards after it), but for a
 * block's texts, which are the texts as given (a blocked request's texts go nowhere).
 */
export function combineOutcomes(
  phase: GuardPhase,
  guards: readonly CompiledGuard[],
  texts: readonly string[],
  outcomes: readonly TextOutcome[],
): GuardVerdict {
  let blockedAt = Number.POSITIVE_INFINITY;
  for (const outcome of outcomes)
    if (outcome.blockedAt >= 0) blockedAt = Math.min(blockedAt, outcome.blockedAt);
  const acted = new Set<number>();
  for (const outcome of outcomes) for (const index of outcome.acted) if (index <= blockedAt) acted.add(index);
  const events: GuardEvent[] = [...acted]
    .sort((a, b) => a - b)
    .map((index) => {
      const guard = guards[index] as CompiledGuard;
      return { guard: guard.name, phase, action: guard.action };
    });
  if (blockedAt !== Number.POSITIVE_INFINITY)
    return {
      texts: [...texts],
      changed: false,
      blockedBy: (guards[blockedAt] as CompiledGuard).name,
      events,
    };
  let changed = false;
  const out = texts.map((text, index) => {
    const masked = outcomes[index]?.masked;
    if (masked === undefined) return text;
    changed = true;
    return masked;
  });
  return { texts: out, changed, blockedBy: undefined, events };
}
