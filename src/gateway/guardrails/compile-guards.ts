import type { GuardAction, GuardPhase, GuardSettings } from '../../config/guardrail-settings.ts';
import { builtInDetector } from './built-in-detectors.ts';
import { compileCustomPattern, compileWordList } from './custom-detectors.ts';
import type { Detector } from './finding.ts';
import { SECRET_WINDOW } from './secret-detectors.ts';
import type { WebhookSettings } from './webhook-guard.ts';

/** A guard ready to run: its detector, or the webhook it asks. */
export interface CompiledGuard {
  name: string;
  phases: ReadonlySet<GuardPhase>;
  action: GuardAction;
  /** Undefined for a webhook guard. */
  detector: Detector | undefined;
  webhook: WebhookSettings | undefined;
  /**
   * The longest match the detector may have to see whole: a stream holds back at most this many
   * characters for it (CONTRACT 6.6: no longer than the longest pattern, at most 256).
   */
  window: number;
}

/** The hold-back window of a stream, whatever the guards: CONTRACT 6.6's bound. */
export const MAX_WINDOW = 256;

/** Each configured guard, compiled once at start (patterns and word lists were checked by the loader). */
export function compileGuards(settings: readonly GuardSettings[]): CompiledGuard[] {
  return settings.map((guard): CompiledGuard => {
    const base = { name: guard.name, phases: new Set(guard.phases), action: guard.action };
    switch (guard.type) {
      case 'secrets':
        return {
          ...base,
          detector: builtInDetector(guard.detectors),
          webhook: undefined,
          window: SECRET_WINDOW,
        };
      case 'pii':
        // The longest personal datum read here: an e-mail address (64 + 1 + 253 is past the bound).
        return {
          ...base,
          detector: builtInDetector(guard.detectors),
          webhook: undefined,
          window: MAX_WINDOW,
        };
      case 'regex':
        return {
          ...base,
          detector: compileCustomPattern(guard.pattern, guard.name, guard.caseInsensitive),
          webhook: undefined,
          window: MAX_WINDOW,
        };
      case 'words': {
        const longest = Math.max(...guard.words.map((word) => word.length));
        return {
          ...base,
          detector: compileWordList(guard.words, guard.name),
          webhook: undefined,
          window: Math.min(MAX_WINDOW, longest + 1),
        };
      }
      default:
        return {
          ...base,
          detector: undefined,
          webhook: {
            url: guard.url,
            headers: guard.headers,
            timeoutMs: guard.timeoutMs,
            failureMode: guard.failureMode,
            maxResponseBytes: guard.maxResponseBytes,
          },
          window: MAX_WINDOW,
        };
    }
  });
}
