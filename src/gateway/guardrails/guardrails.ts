import type { GuardPhase, GuardrailSettings } from '../../config/guardrail-settings.ts';
import type { Logger } from '../../platform/logger.ts';
import { CounterFamily } from '../../platform/metrics/metric-families.ts';
import type { MetricsRegistry } from '../../platform/metrics/metrics-registry.ts';
import {
  checkTexts,
  type DetectorRunner,
  type GuardContext,
  type WebhookFailureListener,
} from './check-texts.ts';
import { type CompiledGuard, compileGuards, MAX_WINDOW } from './compile-guards.ts';
import { GuardScanner } from './guard-scanner.ts';
import type { GuardVerdict } from './guard-verdict.ts';

/** Who a request is: what picks the guards attached to it (CONTRACT 6.9: every level applies). */
export interface GuardSubject {
  app: string;
  /** The team of the request's app, when it has one. */
  team: string | undefined;
  /** The request's task, undefined for the default route. */
  task: string | undefined;
}

/** The guards that apply to one request, by phase, in their configured order. */
export interface RequestGuards {
  input: readonly CompiledGuard[];
  output: readonly CompiledGuard[];
  mcp: readonly CompiledGuard[];
  /** A stream's hold-back window for the output guards: the longest they need, at most 256. */
  outputWindow: number;
  /** Whether a webhook is among the input guards (then the input must wait for it). */
  context: GuardContext;
}

const NO_GUARDS: readonly CompiledGuard[] = Object.freeze([]);

/**
 * The guardrails stage (CONTRACT 6.6): the configured guards compiled once, the guards that
 * apply to a request, and the check the run passes its input, its output and its MCP tool calls
 * through. What a guard did is counted (`gateway_guardrail_actions_total{guard, phase, action}`)
 * and handed back for the ledger; what it matched goes nowhere.
 */
export class Guardrails {
  readonly #guards: CompiledGuard[];
  readonly #settings: GuardrailSettings;
  readonly #cache = new Map<string, RequestGuards>();
  readonly #logger: Logger | undefined;
  /** The detector guards' scan: cached per text, large texts off the event loop (guard-scanner.ts). */
  readonly #scanner: GuardScanner;
  readonly #actions = new CounterFamily(
    'gateway_guardrail_actions_total',
    'What guardrails did, by guard, phase (input, output, mcp) and action (block, mask, log). A webhook that failed open counts as log, one that failed closed as block.',
    ['guard', 'phase', 'action'],
  );

  /** Made once, not per check (issue 42: a chat request's guards cost what they allocate). */
  readonly #onWebhookFailure: WebhookFailureListener = (guard, phase, reason) =>
    this.#logger?.warn({ guard, phase }, `guardrail webhook ${reason}`);
  readonly #scan: DetectorRunner = (phase, guards, texts, context) =>
    this.#scanner.scan(phase, guards, texts, context.app);

  constructor(settings: GuardrailSettings, registry?: MetricsRegistry, logger?: Logger) {
    this.#settings = settings;
    this.#guards = compileGuards(settings.guards);
    this.#logger = logger;
    this.#scanner = new GuardScanner(settings.guards);
    registry?.add(this.#actions);
  }

  /** Whether any guard is configured: without one, no request pays for the stage. */
  get active(): boolean {
    return this.#guards.length > 0;
  }

  /**
   * The guards attached to the request's app, its team and its route (its task's, or `default`),
   * each once, in configured order; remembered per combination (a few hundred at most: apps,
   * teams and tasks are configured or few).
   */
  guardsFor(subject: GuardSubject): RequestGuards | undefined {
    if (!this.active) return undefined;
    const route =
      subject.task !== undefined && Object.hasOwn(this.#settings.routes, subject.task)
        ? subject.task
        : 'default';
    const key = `${subject.app}\u0000${subject.team ?? ''}\u0000${route}`;
    const cached = this.#cache.get(key);
    if (cached !== undefined) return cached;
    const names = new Set([
      ...ownList(this.#settings.apps, subject.app),
      ...(subject.team === undefined ? [] : ownList(this.#settings.teams, subject.team)),
      ...ownList(this.#settings.routes, route),
    ]);
    const attached = this.#guards.filter((guard) => names.has(guard.name));
    const byPhase = (phase: GuardPhase) => {
      const guards = attached.filter((guard) => guard.phases.has(phase));
      return guards.length === 0 ? NO_GUARDS : guards;
    };
    const output = byPhase('output');
    const guards: RequestGuards = {
      input: byPhase('input'),
      output,
      mcp: byPhase('mcp'),
      outputWindow: Math.min(MAX_WINDOW, Math.max(0, ...output.map((guard) => guard.window))),
      context: { app: subject.app, team: subject.team ?? null, model: null },
    };
    if (this.#cache.size < 4096) this.#cache.set(key, guards);
    return guards;
  }

  /**
   * Runs a phase's guards over texts and counts what they did (unless `count` is false: a stream's
   * webhook counts each guard's action once per stream, stream-webhook.ts).
   */
  async check(
    phase: GuardPhase,
    guards: readonly CompiledGuard[],
    texts: readonly string[],
    context: GuardContext,
    count = true,
  ): Promise<GuardVerdict> {
    const verdict = await checkTexts(phase, guards, texts, context, this.#onWebhookFailure, this.#scan);
    if (count) this.count(verdict);
    return verdict;
  }

  /**
   * `check`, answered at once when it can be: every guard a detector and the texts scanned on the
   * event loop (a chat's prompt or answer). Then no promise is made and nothing waits a turn,
   * which a request otherwise pays in every phase (issue 42); a webhook or a large scan waits.
   */
  checkNow(
    phase: GuardPhase,
    guards: readonly CompiledGuard[],
    texts: readonly string[],
    context: GuardContext,
  ): GuardVerdict | Promise<GuardVerdict> {
    for (const guard of guards)
      if (guard.detector === undefined) return this.check(phase, guards, texts, context);
    const scanned = this.#scanner.scan(phase, guards, texts, context.app);
    if (scanned instanceof Promise) return scanned.then((verdict) => this.#counted(verdict));
    return this.#counted(scanned);
  }

  #counted(verdict: GuardVerdict): GuardVerdict {
    this.count(verdict);
    return verdict;
  }

  /** Ends the scan thread, if one runs (it is unref'd while idle: the process never waits for it). */
  close(): Promise<void> {
    return this.#scanner.close();
  }

  /** Counts a verdict's events (for a check made outside `check`: the stream's). */
  count(verdict: Pick<GuardVerdict, 'events'>): void {
    for (const event of verdict.events) this.#actions.series([event.guard, event.phase, event.action]).inc();
  }
}

function ownList(map: Record<string, string[]>, key: string): readonly string[] {
  return Object.hasOwn(map, key) ? (map[key] as string[]) : [];
}
