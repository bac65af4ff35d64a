import type { ProviderSlot } from '../../config/config-types.ts';
import { roundMs } from '../../platform/clock.ts';
import { ApiError } from '../../platform/errors.ts';
import type { Operation, UsageAttempt, UsageRecord } from '../../storage/ports.ts';
import type { FinishReason, FrontDoor } from '../domain/messages.ts';
import { MAX_MODEL_NAME_LENGTH } from '../domain/model-addressing.ts';
import { priceUsage } from '../domain/pricing.ts';
import type { ReportedUsage } from '../domain/reported-usage.ts';
import type { PlannedCandidate, RouteRequest } from '../domain/routing.ts';
import type { Tokenizer } from '../domain/token-count.ts';
import { type ResponseUsage, sumUsage } from '../domain/usage.ts';
import type { Admission } from '../limits/app-limiter.ts';
import { countChars, DEFAULT_OUTPUT_RESERVATION, estimateUsage } from '../limits/estimate-usage.ts';
import type { ProviderAdapter } from '../providers/provider.ts';
import { CLIENT_CLOSED_STATUS, ClientClosedError } from './client-closed-error.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import { planOrFail } from './plan-or-fail.ts';
import type { RunTrace } from './run-trace.ts';
import type { CallScope, CallSuccess, Invoke } from './upstream-caller.ts';

/** What the door knows when a request starts; the rest of the run starts empty. */
export type RunInit = Pick<
  RequestRun,
  | 'id'
  | 'requestId'
  | 'app'
  | 'operation'
  | 'frontDoor'
  | 'task'
  | 'metadata'
  | 'startedAt'
  | 'receivedAt'
  | 'signal'
> & { trace?: RunTrace | undefined };

export interface AdmissionInput {
  /** The request's texts, or a function giving them: only read when the app has limits. */
  texts: readonly string[] | (() => readonly string[]);
  /** Output tokens to reserve: the request's maxTokens, 0 for embeddings, or the default reservation. */
  maxOutputTokens: number | undefined;
}

export interface AnsweredCall {
  provider: string;
  adapter: ProviderAdapter;
  /** The model the upstream reported (priced), else the one asked for. */
  model: string;
  /** Undefined when the upstream reported nothing: `estimate` is used and marked as such. */
  reported: ReportedUsage | undefined;
  estimate: (tokenizer: Tokenizer) => Promise<ReportedUsage>;
  /** Monotonic ms when the call started. */
  startedAt: number;
  outcome?: string;
  /** Why the model stopped, when the upstream said (traces only). */
  finishReason?: FinishReason | undefined;
}

/**
 * The one owner of a gateway request's life: it plans, admits, calls the upstream through the
 * `UpstreamCaller`, stamps the upstream timings, keeps every attempt (the only place attempt rows
 * are built), and finishes exactly once, handing the ledger its record and settling the app's
 * limit reservation. A request refused before it is admitted (no route, a limit reached) never
 * ran and leaves no record.
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
  /** Monotonic ms when the request reached the gateway. */
  readonly startedAt: number;
  /** Epoch ms when the request reached the gateway. */
  readonly receivedAt: number;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  /** Every upstream call made so far, in order. */
  readonly attempts: UsageAttempt[] = [];
  /** Headers the answer must carry (RateLimit fields). */
  readonly responseHeaders: Record<string, string> = {};
  /** The request's trace; undefined when tracing is off. */
  readonly trace: RunTrace | undefined;
  readonly #deps: GatewayDeps;
  /** Calls made so far per slot: the `attempt` number the next call to that slot gets. */
  readonly #callsBySlot = new Map<ProviderSlot, number>();
  /** Monotonic ms of the first upstream byte of the answer that was used. */
  #firstByteAt: number | undefined;
  /** Monotonic ms when the upstream answer that was used finished. */
  #doneAt: number | undefined;
  #admission: Admission | undefined;
  /** Which provider, model and price source served the request (null until one answered). */
  #provider: string | null = null;
  #model: string | null = null;
  #priceSource: string | null = null;
  #candidates: readonly PlannedCandidate[] = NO_CANDIDATES;
  #finished = false;

  constructor(deps: GatewayDeps, init: RunInit) {
    this.#deps = deps;
    this.id = init.id;
    this.requestId = init.requestId;
    this.app = init.app;
    this.operation = init.operation;
    this.frontDoor = init.frontDoor;
    this.task = init.task;
    this.metadata = init.metadata;
    this.startedAt = init.startedAt;
    this.receivedAt = init.receivedAt;
    this.signal = init.signal;
    this.trace = init.trace;
  }

  get finished(): boolean {
    return this.#finished;
  }

  /** The planned candidates, in order of preference (empty until `plan`). */
  get candidates(): readonly PlannedCandidate[] {
    return this.#candidates;
  }

  /** Plans the candidates for the request, or throws the 400 that explains why no slot can serve it. */
  plan(request: RouteRequest): void {
    try {
      this.#candidates = planOrFail(this.#deps, request);
    } catch (error) {
      this.#refused(error);
      throw error;
    }
  }

  /**
   * Reserves the app's limits (429 when a limit is reached), priced at the first candidate's
   * rates. The reservation is settled when the run finishes.
   */
  async admit(input: AdmissionInput): Promise<void> {
    const deps = this.#deps;
    const limits = deps.limiter.limitsFor(this.app);
    if (Object.keys(limits).length === 0) return;
    const first = this.#candidates[0] as PlannedCandidate;
    const { price } = deps.priceBook.resolve(deps.registry.adapter(first.provider).kind, first.model);
    const texts = typeof input.texts === 'function' ? input.texts() : input.texts;
    const estimate = estimateUsage(
      countChars(texts),
      input.maxOutputTokens ?? DEFAULT_OUTPUT_RESERVATION,
      price,
    );
    try {
      this.#admission = await deps.limiter.admit(
        this.app,
        estimate,
        this.frontDoor === 'anthropic' ? 'anthropic' : 'openai',
      );
    } catch (error) {
      this.#refused(error);
      throw error;
    }
    Object.assign(this.responseHeaders, this.#admission.headers);
  }

  /** Runs the admitted request's work and finishes the run whatever happens: answer, error or disconnect. */
  async perform<I, T>(work: (run: RequestRun, input: I) => Promise<T>, input: I): Promise<T> {
    let answer: T;
    try {
      answer = await work(this, input);
    } catch (error) {
      this.finish(error);
      throw error;
    }
    this.finish();
    return answer;
  }

  /** Calls the candidates in order (retries, fallback) until one answers. */
  call<T>(candidates: readonly PlannedCandidate[], invoke: Invoke<T>): Promise<CallSuccess<T>> {
    return this.#deps.caller.call(candidates, this, invoke);
  }

  /** The `attempt` number of the next call to `slot`, counting it. */
  takeAttemptNumber(slot: ProviderSlot): number {
    const attempt = this.#callsBySlot.get(slot) ?? 0;
    this.#callsBySlot.set(slot, attempt + 1);
    return attempt;
  }

  /** A whole answer arrived: its first byte (unless an earlier call's came first) and its end. */
  markAnswered(): void {
    const now = this.#deps.clock.monotonic();
    this.#firstByteAt ??= now;
    this.#doneAt = now;
  }

  /** A stream's first event arrived. */
  markFirstByte(): void {
    this.#firstByteAt = this.#deps.clock.monotonic();
  }

  /** A stream ended, however it ended. */
  markDone(): void {
    this.#doneAt = this.#deps.clock.monotonic();
  }

  /** An upstream call that failed: no tokens, no cost, the failure as its outcome. */
  recordFailedCall(
    candidate: PlannedCandidate,
    latencyMs: number,
    outcome: string,
    upstreamStatus: number | null,
  ): void {
    this.#addAttempt(candidate.provider, candidate.model, 0, 0, false, 0, latencyMs, outcome, upstreamStatus);
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
    this.#addAttempt(
      call.provider,
      call.model,
      usage.inputTokens,
      usage.outputTokens,
      call.reported === undefined,
      priceUsage(usage, price),
      roundMs(doneAt - call.startedAt),
      call.outcome ?? 'ok',
      200,
    );
    this.#provider = call.provider;
    this.#model = boundedName(call.model);
    this.#priceSource = source;
    this.trace?.attemptAnswered(usage, call.model, call.outcome ?? 'ok', call.finishReason);
  }

  /** Usage over every attempt, as the answer reports it. */
  usage(): ResponseUsage {
    return sumUsage(
      this.attempts.map((a) => ({
        tokensIn: a.tokensIn,
        tokensOut: a.tokensOut,
        costUsd: a.costUsd,
        estimated: a.usageEstimated,
      })),
    );
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
    const deps = this.#deps;
    const usage = this.usage();
    const { status, code } = statusOf(error);
    const record: UsageRecord = {
      id: this.id,
      requestId: this.requestId,
      app: this.app,
      operation: this.operation,
      frontDoor: this.frontDoor,
      task: this.task === undefined ? null : boundedName(this.task),
      provider: this.#provider,
      model: this.#model,
      tokensIn: usage.tokensIn,
      tokensOut: usage.tokensOut,
      usageEstimated: usage.estimated,
      costUsd: usage.estimatedCost,
      priceSource: this.#priceSource,
      latencyMs: this.elapsedMs(),
      upstreamFirstByteMs:
        this.#firstByteAt === undefined ? null : roundMs(this.#firstByteAt - this.startedAt),
      upstreamMs: this.#doneAt === undefined ? null : roundMs(this.#doneAt - this.startedAt),
      status,
      errorCode: code,
      createdAt: this.receivedAt,
      attempts: this.attempts,
    };
    deps.recorder.record(record);
    deps.metrics?.finished(record);
    this.trace?.finished(record, error);
    // The limit stores do not reject (Redis failures fall back to local counting), but a settlement is
    // fire-and-forget: should one ever reject, it must not become an unhandled rejection that ends the
    // process. A lost settlement leaves its reservation standing until the window (or the lease) ends.
    this.#admission
      ?.settle({ tokens: usage.tokensIn + usage.tokensOut, costUsd: usage.estimatedCost })
      .catch(() => {});
    return true;
  }

  /** A request refused before admission leaves no ledger row, but is counted. */
  #refused(error: unknown): void {
    if (error instanceof ApiError)
      this.#deps.metrics?.refused(this.app, this.operation, this.frontDoor, error);
  }

  #addAttempt(
    provider: string,
    model: string,
    tokensIn: number,
    tokensOut: number,
    usageEstimated: boolean,
    costUsd: number,
    latencyMs: number,
    outcome: string,
    upstreamStatus: number | null,
  ): void {
    this.attempts.push({
      attempt: this.attempts.length,
      provider,
      model: boundedName(model),
      tokensIn,
      tokensOut,
      usageEstimated,
      costUsd,
      latencyMs,
      outcome,
      upstreamStatus,
    });
  }
}

const NO_CANDIDATES: readonly PlannedCandidate[] = Object.freeze([]);

function statusOf(error: unknown): { status: number; code: string | null } {
  if (error === undefined) return { status: 200, code: null };
  if (error instanceof ClientClosedError) return { status: CLIENT_CLOSED_STATUS, code: 'client_closed' };
  if (error instanceof ApiError) return { status: error.statusCode, code: error.code };
  return { status: 500, code: 'internal_error' };
}

/**
 * A name as the ledger keeps it: at most MAX_MODEL_NAME_LENGTH characters. The doors and the native
 * schemas bound what clients send; this bounds what an upstream reports, as the ledger's rollups
 * key on the model (a long key slows every later insert into them; PostgreSQL refuses an index
 * entry past about 2.7 kB, which would fail the batch for good).
 */
function boundedName(name: string): string {
  return name.length <= MAX_MODEL_NAME_LENGTH ? name : name.slice(0, MAX_MODEL_NAME_LENGTH);
}
