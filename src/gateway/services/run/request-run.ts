import type { ProviderSlot } from '../../../config/config-types.ts';
import { roundMs } from '../../../platform/clock.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { Operation, UsageAttempt } from '../../../storage/ports.ts';
import type { FrontDoor } from '../../domain/messages.ts';
import { priceUsage } from '../../domain/pricing.ts';
import type { PlannedCandidate, RouteRequest } from '../../domain/routing.ts';
import type { ResponseUsage } from '../../domain/usage.ts';
import { formatGuardEvents, type RunGuardrails } from '../../guardrails/guard-verdict.ts';
import type { Admission } from '../../limits/app-limiter.ts';
import type { ProviderAdapter } from '../../providers/provider.ts';
import type { GatewayDeps } from '../gateway-deps.ts';
import type { CallScope, CallSuccess, Invoke } from '../upstream/upstream-caller.ts';
import { ClientClosedError } from './client-closed-error.ts';
import { allowedPlan } from './model-access.ts';
import { completeOverflow } from './overflow-figures.ts';
import { planOrFail } from './plan-or-fail.ts';
import {
  type AbandonedCall,
  type AdmissionInput,
  type AnsweredCall,
  guessInputTokens,
  type OpenWork,
  type RunInit,
} from './request-run-inputs.ts';
import { labelRun } from './request-run-labels.ts';
import type { RunTrace } from './request-run-trace.ts';
import { reserveLimits } from './reserve-limits.ts';
import { RunRecord } from './run-record.ts';

/**
 * The one owner of a gateway request's life: it plans, admits, calls the upstream through the
 * `UpstreamCaller`, stamps the upstream timings and keeps every attempt in its ledger record
 * (`RunRecord`, run-record.ts), and finishes exactly once, handing the ledger that record and
 * settling the app's limit reservation. A request refused before it is admitted (no route, a limit reached) never
 * ran and leaves no record.
 *
 * Once admitted, a run owes its record (CONTRACT 5.1) whatever the client does: a use case
 * finishes it on failure, and the edge that answers the request calls `close` when it is done,
 * which finishes it on success, as 499 `client_closed` when the client left before the answer
 * ended, and ends an open stream (`hold`) that its writer left unread or never started.
 *
 * Use cases are short functions over it; `perform` takes a module-level function rather than a
 * closure, so a request allocates no function of its own for the recording.
 */
export class RequestRun implements CallScope {
  /** The response id, known from the start so a stream's `start` event can carry it. */
  readonly id: string;
  readonly requestId: string;
  readonly app: string;
  readonly operation: Operation;
  /** The door the request came through (the ledger's `front_door`). */
  readonly frontDoor: FrontDoor;
  readonly task: string | undefined;
  readonly metadata: Readonly<Record<string, unknown>> | undefined;
  /** The session the request belongs to (CONTRACT 5.6): it keeps the request on one deployment. */
  readonly sessionKey: string | undefined;
  /** The end user (CONTRACT 6.5), and the app's team when the request was authenticated. */
  readonly endUser: string | undefined;
  readonly team: string | undefined;
  /** Monotonic ms when the request reached the gateway. */
  readonly startedAt: number;
  /** Epoch ms when the request reached the gateway. */
  readonly receivedAt: number;
  /** The batch the request belongs to (CONTRACT 6.7), null for a live request. */
  readonly batchId: string | null;
  /** Aborted when the client goes away (`clientLeft`): the upstream call is cancelled. */
  readonly signal: AbortSignal;
  /** Headers the answer must carry (RateLimit fields). */
  readonly responseHeaders: Record<string, string> = {};
  /** The request's trace; undefined when tracing is off. */
  readonly trace: RunTrace | undefined;
  /** What guardrails did to the request (CONTRACT 6.6), for its row: guard names and actions only. */
  readonly guardrails: RunGuardrails = { events: [], blocked: undefined };
  readonly #deps: GatewayDeps;
  /** Calls made so far per slot: the `attempt` number the next call to that slot gets. */
  readonly #callsBySlot = new Map<ProviderSlot, number>();
  /** What the ledger will have of the request: attempts, who answered, timings. */
  readonly #record: RunRecord;
  #admission: Admission | undefined;
  /** What ends the in-flight counts of the calls that answered: run when the run finishes. */
  #releases: (() => void)[] = [];
  #candidates: readonly PlannedCandidate[] = NO_CANDIDATES;
  readonly #controller = new AbortController();
  /** Set once the limits let the request in: from then on it owes a record. */
  #admitted = false;
  #finished = false;
  /** The request's input, guessed in tokens for a call the client abandoned. */
  #input: AdmissionInput = NO_INPUT;
  #abandoned: AbandonedCall | undefined;
  #open: OpenWork | undefined;
  /** How the request was addressed (`plan`), which `/metrics` labels it by. */
  #routed: RouteRequest | undefined;

  constructor(deps: GatewayDeps, init: RunInit) {
    this.#deps = deps;
    this.id = init.id;
    this.requestId = init.requestId;
    this.app = init.app;
    this.operation = init.operation;
    this.frontDoor = init.frontDoor;
    this.task = init.task;
    this.metadata = init.metadata;
    this.sessionKey = init.sessionKey;
    this.endUser = init.endUser;
    this.team = init.team;
    this.startedAt = init.startedAt;
    this.receivedAt = init.receivedAt;
    this.signal = this.#controller.signal;
    this.trace = init.trace;
    this.batchId = init.batchId ?? null;
    this.#record = new RunRecord(deps.clock);
  }

  /** Every upstream call made so far, in order. */
  get attempts(): readonly UsageAttempt[] {
    return this.#record.attempts;
  }

  /** Names the MCP server and tool this run calls, for its ledger row (an `mcp_tool` run). */
  callsTool(server: string, tool: string): void {
    this.#record.callsTool(server, tool);
  }

  /** The client went away before the answer ended: the upstream call in flight is cancelled. */
  clientLeft(): void {
    this.#controller.abort();
  }

  get finished(): boolean {
    return this.#finished;
  }

  /** The planned candidates, in order of preference (empty until `plan`). */
  get candidates(): readonly PlannedCandidate[] {
    return this.#candidates;
  }

  /** Plans the candidates the app may use (403 outside its allow lists), or the 400 of no slot that can serve it. */
  plan(request: RouteRequest): void {
    this.#routed = request;
    try {
      this.#candidates = allowedPlan(this.#deps, this.app, request, planOrFail(this.#deps, request));
    } catch (error) {
      this.#refused(error);
      throw error;
    }
  }

  /**
   * Reserves the app's limits (429 when a limit is reached); an answer from the response cache
   * (`fromCache`) counts toward request limits only. The reservation is settled when the run finishes.
   */
  async admit(input: AdmissionInput, fromCache = false): Promise<void> {
    this.#input = input;
    const first = this.#candidates[0];
    try {
      this.#admission = await reserveLimits(this.#deps, this, first, input, fromCache);
    } catch (error) {
      this.#refused(error);
      throw error;
    }
    this.#admitted = true;
    this.#deps.recorder.admitted(this);
    if (this.#admission !== undefined) Object.assign(this.responseHeaders, this.#admission.headers);
  }

  /**
   * The answer comes from the response cache (CONTRACT 5.5): no upstream call, so no attempt and
   * no cost; the row names who gave the original answer and what it cost, as the cost saved.
   */
  answeredFromCache(provider: string, model: string, costSavedUsd: number): void {
    this.#record.answeredFromCache(provider, model, costSavedUsd);
  }

  /**
   * Runs the admitted request's work; a failure finishes the run at once. The answer is not the
   * end of the request: the edge finishes the run with `close` once it has sent the answer, or
   * knows the client left before it.
   */
  async perform<I, T>(work: (run: RequestRun, input: I) => Promise<T>, input: I): Promise<T> {
    try {
      return await work(this, input);
    } catch (error) {
      this.finish(error);
      throw error;
    }
  }

  /**
   * Calls the candidates in order (retries, fallback) until one answers. A call the client
   * abandoned is accounted before the failure goes on: the upstream had the prompt.
   */
  async call<T>(candidates: readonly PlannedCandidate[], invoke: Invoke<T>): Promise<CallSuccess<T>> {
    try {
      return await this.#deps.caller.call(candidates, this, invoke);
    } catch (error) {
      const abandoned = this.#abandoned;
      this.#abandoned = undefined;
      if (abandoned !== undefined) await this.#accountAbandoned(abandoned);
      throw completeOverflow(error, this.#deps, this.#input);
    }
  }

  /** Keeps the call the client left during, for `call` to account (CallScope). */
  recordAbandonedCall(
    candidate: PlannedCandidate,
    adapter: ProviderAdapter,
    startedAt: number,
    deployment: string | null,
  ): void {
    this.#abandoned = { candidate, adapter, startedAt, deployment };
  }

  /** The call that answered (CallScope): its deployment is the next `account`'s; its count ends with the run. */
  answeredBy(deployment: string | null, release: () => void, clientModel?: string): void {
    this.#record.answeringDeployment = deployment;
    this.#record.answeringClientModel = clientModel ?? null;
    this.#releases.push(release);
  }

  /** Work that outlives its use case (an open stream): `close` ends it if it has not ended. */
  hold(work: OpenWork): void {
    this.#open = work;
  }

  /**
   * The edge is done with the request: the answer was sent, failed (`cause`), or the client left
   * (a ClientClosedError). Finishes the run if nothing has, ending held work first; idempotent, a
   * no-op for a run never admitted. Every admitted request comes through here, so none leaves without its row.
   */
  async close(cause?: unknown): Promise<void> {
    if (this.#finished || !this.#admitted) return;
    const open = this.#open;
    this.#open = undefined;
    // Held work not ended by now was not read to its end: the client left, unless something failed.
    if (open !== undefined) await open.end(cause ?? new ClientClosedError());
    else this.finish(cause);
  }

  /** The `attempt` number of the next call to `slot`, counting it. */
  takeAttemptNumber(slot: ProviderSlot): number {
    const attempt = this.#callsBySlot.get(slot) ?? 0;
    this.#callsBySlot.set(slot, attempt + 1);
    return attempt;
  }

  /** A whole answer arrived: its first byte (unless an earlier call's came first) and its end. */
  markAnswered(): void {
    this.#record.markAnswered();
  }

  markFirstByte(): void {
    this.#record.markFirstByte();
  }

  /** A stream ended, however it ended (`markFirstByte`: its first event arrived). */
  markDone(): void {
    this.#record.markDone();
  }

  /** An upstream call that failed: no tokens, no cost, the failure as its outcome. */
  recordFailedCall(
    candidate: PlannedCandidate,
    latencyMs: number,
    outcome: string,
    upstreamStatus: number | null,
    deployment: string | null,
  ): void {
    this.#record.addFailedCall(candidate, latencyMs, outcome, upstreamStatus, deployment);
  }

  /**
   * Prices an answered upstream call, appends it to the attempts and notes which provider, model
   * and price source served the request.
   */
  async account(call: AnsweredCall): Promise<void> {
    const deps = this.#deps;
    const doneAt = deps.clock.monotonic();
    const usage = call.reported ?? (await call.estimate(deps.tokenizer));
    const { price, source } = deps.priceBook.resolve(call.adapter.kind, call.model);
    this.#record.addAnsweredCall(
      {
        provider: call.provider,
        model: call.model,
        usage,
        usageEstimated: call.reported === undefined,
        costUsd: priceUsage(usage, price),
        latencyMs: roundMs(doneAt - call.startedAt),
        outcome: call.outcome ?? 'ok',
        upstreamStatus: call.upstreamStatus === undefined ? 200 : call.upstreamStatus,
      },
      source,
    );
    this.trace?.attemptAnswered(usage, call.model, call.outcome ?? 'ok', call.finishReason);
  }

  /** Usage over every attempt, as the answer reports it. */
  usage(): ResponseUsage {
    return this.#record.usage();
  }

  elapsedMs(): number {
    return roundMs(this.#deps.clock.monotonic() - this.startedAt);
  }

  /**
   * Hands the ledger the request's record (one row, with every attempt) and settles the
   * reservation. Only the first call counts: a path that would finish twice records once.
   * `error` is undefined for success.
   */
  finish(error?: unknown): boolean {
    if (this.#finished) return false;
    this.#finished = true;
    const settling = this.guardrails.settle?.();
    // An output webhook's verdict on a stream's last text: the row waits for it (at most its timeout).
    if (settling !== undefined)
      void settling.then(
        () => this.#writeRow(error),
        () => this.#writeRow(error),
      );
    else this.#writeRow(error);
    return true;
  }

  #writeRow(error: unknown): void {
    const deps = this.#deps;
    const usage = this.usage();
    const record = this.#record.toUsageRecord(this, this.guardrails.blocked ?? error, usage);
    record.guardrails = formatGuardEvents(this.guardrails.events);
    for (const release of this.#releases) release();
    deps.recorder.record(record);
    deps.metrics?.finished(record, labelRun(this.#routed, deps, this.#candidates));
    this.trace?.finished(record, error);
    // The limit stores do not reject (Redis failures fall back to local counting), but a settlement is
    // fire-and-forget: should one ever reject, it must not become an unhandled rejection that ends the
    // process. A lost settlement leaves its reservation standing until the window (or the lease) ends.
    this.#admission
      ?.settle({ tokens: usage.tokensIn + usage.tokensOut, costUsd: usage.estimatedCost })
      .catch(() => {});
  }

  /**
   * An abandoned call as an attempt: the prompt's tokens as the limits estimate them (four
   * characters to a token; a guess, marked estimated), nothing out, priced. Not the tokenizer:
   * its thread (85 MiB) is never started for a gateway whose upstreams report usage, and a client
   * that leaves must not start it.
   */
  async #accountAbandoned({ candidate, adapter, startedAt, deployment }: AbandonedCall): Promise<void> {
    this.#record.answeringDeployment = deployment;
    const inputTokens = guessInputTokens(this.#input);
    await this.account({
      provider: candidate.provider,
      adapter,
      model: candidate.model,
      reported: undefined,
      estimate: async () => ({ inputTokens, outputTokens: 0 }),
      startedAt,
      outcome: 'client_closed',
      upstreamStatus: null,
    });
  }

  /** A request refused before admission leaves no ledger row, but is counted. */
  #refused(error: unknown): void {
    if (error instanceof ApiError)
      this.#deps.metrics?.refused(this, error, labelRun(this.#routed, this.#deps, this.#candidates));
  }
}

const NO_CANDIDATES: readonly PlannedCandidate[] = Object.freeze([]);
const NO_INPUT: AdmissionInput = Object.freeze({ texts: Object.freeze([]), maxOutputTokens: undefined });
