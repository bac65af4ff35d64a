import type { GuardPhase } from '../../config/guardrail-settings.ts';
import type { CompiledGuard } from './compile-guards.ts';
import type { Finding } from './finding.ts';
import type { GuardEvent, GuardVerdict } from './guard-verdict.ts';
import { maskText } from './mask-text.ts';
import { askWebhook } from './webhook-guard.ts';

/** Who is asking: what a webhook is told besides the texts. */
export interface GuardContext {
  app: string;
  team: string | null;
  model: string | null;
}

/** Told when a webhook fails (its reason, never the texts). */
export type WebhookFailureListener = (guard: string, phase: GuardPhase, reason: string) => void;

/**
 * Runs consecutive detector guards over texts, in order (the same as `runDetectorGuards`); the
 * guardrails stage hands one that moves a large scan to the scan thread (scan-thread.ts) and
 * reuses outcomes per app (guard-scanner.ts), which is why it is told who asks.
 */
export type DetectorRunner = (
  phase: GuardPhase,
  guards: readonly CompiledGuard[],
  texts: readonly string[],
  context: GuardContext,
) => GuardVerdict | Promise<GuardVerdict>;

/**
 * Runs `guards` (in their configured order) over `texts` in one phase: a guard that finds
 * something blocks (and no later guard runs), masks (later guards see the masked texts) or logs.
 * Detector guards run as a stretch through `runDetectors` (on the event loop unless the caller
 * moves them); only a webhook guard makes this wait otherwise. The verdict's events name guards
 * and actions only.
 */
export async function checkTexts(
  phase: GuardPhase,
  guards: readonly CompiledGuard[],
  texts: readonly string[],
  context: GuardContext,
  onWebhookFailure?: WebhookFailureListener,
  runDetectors: DetectorRunner = runDetectorGuards,
): Promise<GuardVerdict> {
  let current = texts as string[];
  let changed = false;
  const events: GuardEvent[] = [];
  let index = 0;
  while (index < guards.length) {
    const guard = guards[index] as CompiledGuard;
    if (guard.detector !== undefined) {
      let end = index + 1;
      while (end < guards.length && (guards[end] as CompiledGuard).detector !== undefined) end++;
      // Every guard a detector (the usual case): the list as it is, no copy per request.
      const stretch = index === 0 && end === guards.length ? guards : guards.slice(index, end);
      const verdict = await runDetectors(phase, stretch, current, context);
      events.push(...verdict.events);
      if (verdict.changed) {
        current = verdict.texts;
        changed = true;
      }
      if (verdict.blockedBy !== undefined)
        return { texts: current, changed, blockedBy: verdict.blockedBy, events };
      index = end;
      continue;
    }
    index++;
    const answer = await askWebhook(guard.webhook as NonNullable<CompiledGuard['webhook']>, {
      phase,
      ...context,
      texts: current,
    });
    if (answer.action === 'failed') {
      onWebhookFailure?.(guard.name, phase, answer.reason);
      const closed = guard.webhook?.failureMode === 'closed';
      events.push({ guard: guard.name, phase, action: closed ? 'block' : 'log' });
      if (closed) return { texts: current, changed, blockedBy: guard.name, events };
      continue;
    }
    if (answer.action === 'allow') continue;
    const action = guard.action === 'log' ? 'log' : answer.action;
    events.push({ guard: guard.name, phase, action });
    if (action === 'block') return { texts: current, changed, blockedBy: guard.name, events };
    if (action === 'mask' && 'replacements' in answer) {
      current = answer.replacements;
      changed = true;
    }
  }
  return { texts: current, changed, blockedBy: undefined, events };
}

/**
 * Detector guards over texts, in order, synchronously: what `checkTexts` does for a stretch of
 * them, on the event loop or on the scan thread (the same function either way).
 */
export function runDetectorGuards(
  phase: GuardPhase,
  guards: readonly CompiledGuard[],
  texts: readonly string[],
): GuardVerdict {
  let current = texts as string[];
  let changed = false;
  const events: GuardEvent[] = [];
  for (const guard of guards) {
    const verdict = runDetector(guard, current);
    if (verdict === undefined) continue;
    events.push({ guard: guard.name, phase, action: guard.action });
    if (guard.action === 'block') return { texts: current, changed, blockedBy: guard.name, events };
    if (guard.action === 'mask') {
      current = verdict;
      changed = true;
    }
  }
  return { texts: current, changed, blockedBy: undefined, events };
}

/** The texts masked by one detector guard, or undefined when it found nothing. */
export function runDetector(guard: CompiledGuard, texts: readonly string[]): string[] | undefined {
  const detector = guard.detector;
  if (detector === undefined) return undefined;
  let masked: string[] | undefined;
  const found: Finding[] = [];
  for (let index = 0; index < texts.length; index++) {
    const text = texts[index] as string;
    found.length = 0;
    detector(text, found);
    if (found.length === 0) continue;
    masked ??= [...texts];
    masked[index] = maskText(text, found);
  }
  return masked;
}
