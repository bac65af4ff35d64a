import type { Clock } from '../../../platform/clock.ts';
import { roundMs } from '../../../platform/clock.ts';
import type { Operation, UsageAttempt, UsageRecord } from '../../../storage/ports.ts';
import type { FrontDoor } from '../../domain/messages.ts';
import type { PlannedCandidate } from '../../domain/routing.ts';
import type { ResponseUsage } from '../../domain/usage.ts';
import {
  type AttemptFields,
  attemptRow,
  boundedName,
  statusOf,
  sumCacheTokens,
  usageOfAttempts,
} from './attempt-row.ts';

/** What the ledger row names of the request itself, fixed when its run starts. */
export interface RecordedRequest {
  readonly id: string;
  readonly batchId: string | null;
  readonly endUser?: string | undefined;
  readonly team?: string | undefined;
  readonly requestId: string;
  readonly app: string;
  readonly operation: Operation;
  readonly frontDoor: FrontDoor;
  readonly task: string | undefined;
  /** Monotonic ms when the request reached the gateway. */
  readonly startedAt: number;
  /** Epoch ms when the request reached the gateway. */
  readonly receivedAt: number;
}

/**
 * A request's ledger record as its run learns it: every upstream call as an attempt (the only
 * place attempt rows are built), who served the answer and at what price source, the upstream's
 * timings, a cache hit's saved cost, an MCP call's server and tool; and the row they make once the
 * run finishes. The run (request-run.ts) owns the request's life; this is what it writes down.
 */
export class RunRecord {
  /** Every upstream call made so far, in order. */
  readonly attempts: UsageAttempt[] = [];
  /** The deployment of the last call that answered (null: none, or a slot of one): the next answer's. */
  answeringDeployment: string | null = null;
  /** The client's model name where the answering deployment's `modelMap` sent another id. */
  answeringClientModel: string | null = null;
  readonly #clock: Clock;
  /** Monotonic ms of the first upstream byte of the answer that was used. */
  #firstByteAt: number | undefined;
  /** Monotonic ms when the upstream answer that was used finished. */
  #doneAt: number | undefined;
  /** Which provider, model and price source served the request (null until one answered). */
  #provider: string | null = null;
  #model: string | null = null;
  #clientModel: string | null = null;
  #priceSource: string | null = null;
  /** The deployment the ledger names. */
  #deployment: string | null = null;
  /** Set when the answer came from the response cache: what the original answer cost. */
  #costSavedUsd: number | undefined;
  /** The upstream MCP server and tool of an `mcp_tool` run (CONTRACT 5.7). */
  #mcpServer: string | null = null;
  #mcpTool: string | null = null;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  callsTool(server: string, tool: string): void {
    this.#mcpServer = boundedName(server);
    this.#mcpTool = boundedName(tool);
  }

  answeredFromCache(provider: string, model: string, costSavedUsd: number): void {
    this.#provider = provider;
    this.#model = boundedName(model);
    this.#costSavedUsd = costSavedUsd;
  }

  /** A whole answer arrived: its first byte (unless an earlier call's came first) and its end. */
  markAnswered(): void {
    const now = this.#clock.monotonic();
    this.#firstByteAt ??= now;
    this.#doneAt = now;
  }

  markFirstByte(): void {
    this.#firstByteAt = this.#clock.monotonic();
  }

  markDone(): void {
    this.#doneAt = this.#clock.monotonic();
  }

  /** An upstream call that failed: no tokens, no cost, the failure as its outcome. */
  addFailedCall(
    candidate: PlannedCandidate,
    latencyMs: number,
    outcome: string,
    upstreamStatus: number | null,
    deployment: string | null,
  ): void {
    const { provider, model } = candidate;
    this.attempts.push(
      attemptRow(this.attempts.length, { provider, model, latencyMs, outcome, upstreamStatus, deployment }),
    );
  }

  /** An answered call, priced: an attempt on the answering deployment, and who served the request. */
  addAnsweredCall(fields: Omit<AttemptFields, 'deployment'>, priceSource: string): void {
    this.attempts.push(attemptRow(this.attempts.length, { ...fields, deployment: this.answeringDeployment }));
    this.#provider = fields.provider;
    this.#deployment = this.answeringDeployment;
    this.#model = boundedName(fields.model);
    this.#clientModel = this.answeringClientModel === null ? null : boundedName(this.answeringClientModel);
    this.#priceSource = priceSource;
  }

  /** Usage over every attempt, as the answer reports it. */
  usage(): ResponseUsage {
    return usageOfAttempts(this.attempts);
  }

  /** The ledger row, one per request with every attempt; `error` undefined for success. */
  toUsageRecord(request: RecordedRequest, error: unknown, usage: ResponseUsage): UsageRecord {
    const { status, code } = statusOf(error);
    const startedAt = request.startedAt;
    const cache = sumCacheTokens(this.attempts);
    // No spread in this literal: V8 defines every property after a spread through its runtime
    // (about 1,500 instructions each, 31k of a chat request's 590k on the main thread, counted
    // with bench/instructions.ts), where a literal of plain properties is one allocation.
    return {
      id: request.id,
      requestId: request.requestId,
      app: request.app,
      operation: request.operation,
      frontDoor: request.frontDoor,
      task: request.task === undefined ? null : boundedName(request.task),
      provider: this.#provider,
      model: this.#model,
      clientModel: this.#clientModel,
      tokensIn: usage.tokensIn,
      tokensOut: usage.tokensOut,
      usageEstimated: usage.estimated,
      costUsd: usage.estimatedCost,
      priceSource: this.#priceSource,
      latencyMs: roundMs(this.#clock.monotonic() - startedAt),
      upstreamFirstByteMs: this.#firstByteAt === undefined ? null : roundMs(this.#firstByteAt - startedAt),
      upstreamMs: this.#doneAt === undefined ? null : roundMs(this.#doneAt - startedAt),
      status,
      errorCode: code,
      createdAt: request.receivedAt,
      cacheReadTokens: cache.cacheReadTokens,
      cacheWrite5mTokens: cache.cacheWrite5mTokens,
      cacheWrite1hTokens: cache.cacheWrite1hTokens,
      deployment: this.#deployment,
      cacheHit: this.#costSavedUsd !== undefined,
      costSavedUsd: this.#costSavedUsd ?? 0,
      mcpServer: this.#mcpServer,
      mcpTool: this.#mcpTool,
      batchId: request.batchId,
      endUser: request.endUser ?? null,
      team: request.team ?? null,
      // The run adds what its guardrails did.
      guardrails: null,
      attempts: this.attempts,
    };
  }
}
