import type { GuardAction, GuardPhase } from '../../config/guardrail-settings.ts';

/** What one guard did to one request in one phase: what the ledger and metrics keep (never what matched). */
export interface GuardEvent {
  guard: string;
  phase: GuardPhase;
  action: GuardAction;
}

/** The outcome of a phase's guards over a request's texts. */
export interface GuardVerdict {
  /** The texts as they go on: masked where a guard masked, the same strings otherwise. */
  texts: string[];
  /** Whether any text changed. */
  changed: boolean;
  /** The guard that blocked, if one did (the first in order). */
  blockedBy: string | undefined;
  events: GuardEvent[];
}

/** The ledger's `guardrails` value: `guard:phase:action` per event, comma-separated, at most 500 characters. */
export function formatGuardEvents(events: readonly GuardEvent[]): string | null {
  if (events.length === 0) return null;
  const text = [...new Set(events.map((event) => `${event.guard}:${event.phase}:${event.action}`))].join(',');
  return text.length <= 500 ? text : `${text.slice(0, 497)}...`;
}

/**
 * What guardrails did to one request, kept on its run for its ledger row: the events, and the
 * block that ended a stream after its first byte (the row says `guardrail_blocked`, though the
 * stream itself ended as a client that left would have, its upstream let go).
 */
export interface RunGuardrails {
  events: GuardEvent[];
  blocked: Error | undefined;
  /**
   * Called as the run finishes, before its row is made: a stream's output guard lets go of what
   * its window still holds here, so a match in the stream's last characters is in the row. With
   * an output webhook it answers a promise: the row waits for the webhook's verdict on that text.
   */
  settle?: (() => void | Promise<void>) | undefined;
}
