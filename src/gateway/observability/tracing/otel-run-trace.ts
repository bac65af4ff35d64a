import {
  type Attributes,
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
} from '@opentelemetry/api';
import type { ProviderSlot } from '../../../config/config-types.ts';
import type { Operation, UsageRecord } from '../../../storage/ports.ts';
import type { FinishReason } from '../../domain/messages.ts';
import { type ReportedUsage, splitCacheTokens } from '../../domain/reported-usage.ts';
import type { TraceHeaders } from '../../providers/http/trace-headers.ts';
import { isProviderError } from '../../providers/provider-error.ts';
import type { RunTrace } from '../../services/run/request-run-trace.ts';
import {
  GEN_AI_CACHE_CREATION_TOKENS,
  GEN_AI_CACHE_READ_TOKENS,
  GEN_AI_OPERATION_NAME,
} from '../gen-ai-names.ts';

/**
 * One run's spans: a CLIENT child of the request's span per upstream call, named as the GenAI
 * conventions say (`{gen_ai.operation.name} {gen_ai.request.model}`), and the GenAI attributes
 * on the request's span when the run finishes. Counts, models and ids only: never a prompt or an
 * answer.
 */
export class OtelRunTrace implements RunTrace {
  readonly #tracer: Tracer;
  readonly #requestSpan: Span;
  readonly #context: Context;
  readonly #operation: string;
  readonly #vendorOf: (slot: ProviderSlot) => string;
  #attempt: Span | undefined;
  /** The model asked of the slot that was called last: the request's gen_ai.request.model. */
  #requestModel: string | undefined;
  /** The finish reason of the last answered call: the request's. */
  #finishReasons: string[] | undefined;
  /** The run's error code once it finished with one (the request span's `error.type`). */
  errorType: string | undefined;

  constructor(
    tracer: Tracer,
    requestSpan: Span,
    context: Context,
    operation: Operation,
    vendorOf: (slot: ProviderSlot) => string,
  ) {
    this.#tracer = tracer;
    this.#requestSpan = requestSpan;
    this.#context = context;
    this.#operation = GEN_AI_OPERATION_NAME[operation];
    this.#vendorOf = vendorOf;
  }

  startAttempt(slot: ProviderSlot, model: string, attempt: number, deployment?: string | null): TraceHeaders {
    this.#attempt?.end();
    this.#requestModel = model;
    const attributes: Attributes = {
      'gen_ai.operation.name': this.#operation,
      'gen_ai.provider.name': this.#vendorOf(slot),
      'gen_ai.request.model': model,
      'gateway.provider.slot': slot,
      'gateway.attempt': attempt,
    };
    if (deployment !== undefined && deployment !== null)
      attributes['gateway.provider.deployment'] = deployment;
    const span = this.#tracer.startSpan(
      `${this.#operation} ${model}`,
      { kind: SpanKind.CLIENT, attributes },
      this.#context,
    );
    this.#attempt = span;
    const { traceId, spanId, traceFlags, traceState } = span.spanContext();
    const traceparent = `00-${traceId}-${spanId}-${traceFlags === 1 ? '01' : '00'}`;
    const state = traceState?.serialize();
    return state === undefined || state === '' ? { traceparent } : { traceparent, tracestate: state };
  }

  attemptFailed(error: unknown): void {
    const span = this.#attempt;
    if (span === undefined) return;
    this.#attempt = undefined;
    let type = 'error';
    if (isProviderError(error)) {
      type = error.failure === 'http' ? String(error.status) : error.failure;
      if (error.status !== undefined) span.setAttribute('http.response.status_code', error.status);
    }
    span.setAttribute('error.type', type);
    span.setStatus({ code: SpanStatusCode.ERROR, message: type });
    span.end();
  }

  attemptAnswered(
    usage: ReportedUsage,
    responseModel: string,
    outcome: string,
    finishReason: FinishReason | undefined,
  ): void {
    const span = this.#attempt;
    if (span === undefined) return;
    this.#attempt = undefined;
    span.setAttributes({
      'gen_ai.response.model': responseModel,
      'gen_ai.usage.input_tokens': usage.inputTokens,
      'gen_ai.usage.output_tokens': usage.outputTokens,
    });
    // The prompt cache's counts, where the upstream reports them (an estimate knows none).
    const cache = splitCacheTokens(usage);
    if (usage.cacheReadTokens !== undefined)
      span.setAttribute(GEN_AI_CACHE_READ_TOKENS, cache.cacheReadTokens);
    if (usage.cacheWriteTokens !== undefined)
      span.setAttribute(GEN_AI_CACHE_CREATION_TOKENS, cache.cacheWrite5mTokens + cache.cacheWrite1hTokens);
    if (finishReason !== undefined) {
      this.#finishReasons = [finishReason];
      span.setAttribute('gen_ai.response.finish_reasons', this.#finishReasons);
    }
    if (outcome !== 'ok') {
      span.setAttribute('error.type', outcome);
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
    }
    span.end();
  }

  finished(record: UsageRecord, error: unknown): void {
    // A call left open (the run failed while it was in flight) ends with the run.
    if (this.#attempt !== undefined) this.attemptFailed(error);
    const span = this.#requestSpan;
    const attributes: Attributes = {
      'gen_ai.operation.name': this.#operation,
      'gen_ai.usage.input_tokens': record.tokensIn,
      'gen_ai.usage.output_tokens': record.tokensOut,
      'gateway.app': record.app,
      'gateway.operation': record.operation,
      'gateway.front_door': record.frontDoor,
      'gateway.response_id': record.id,
      'gateway.cost_usd': record.costUsd,
      'gateway.usage_estimated': record.usageEstimated,
      'gateway.attempts': record.attempts.length,
    };
    // Assigned, not computed names in the literal: V8 defines every property from the first
    // computed name on through its runtime (about 1,400 instructions each).
    attributes[GEN_AI_CACHE_READ_TOKENS] = record.cacheReadTokens;
    attributes[GEN_AI_CACHE_CREATION_TOKENS] = record.cacheWrite5mTokens + record.cacheWrite1hTokens;
    if (this.#requestModel !== undefined) attributes['gen_ai.request.model'] = this.#requestModel;
    if (this.#finishReasons !== undefined) attributes['gen_ai.response.finish_reasons'] = this.#finishReasons;
    if (record.provider !== null) {
      attributes['gen_ai.provider.name'] = this.#vendorOf(record.provider as ProviderSlot);
      attributes['gateway.provider.slot'] = record.provider;
    }
    if (record.deployment !== null) attributes['gateway.provider.deployment'] = record.deployment;
    if (record.model !== null) attributes['gen_ai.response.model'] = record.model;
    if (record.errorCode !== null) {
      attributes['error.type'] = record.errorCode;
      this.errorType = record.errorCode;
    }
    if (record.mcpServer !== null && record.mcpTool !== null) this.#toolCallSpan(record, attributes);
    span.setAttributes(attributes);
    if (record.status >= 500)
      span.setStatus({ code: SpanStatusCode.ERROR, message: record.errorCode ?? String(record.status) });
  }

  /**
   * An MCP tool call (CONTRACT 5.7): the request's span names the tool, and a CLIENT child spans
   * the call, `execute_tool {tool}` as the GenAI conventions name it, ended now and started its
   * latency ago. Names only: never the arguments or the result.
   */
  #toolCallSpan(record: UsageRecord, attributes: Attributes): void {
    const tool = { 'gen_ai.tool.name': record.mcpTool ?? '', 'gateway.mcp.server': record.mcpServer ?? '' };
    Object.assign(attributes, tool);
    const end = Date.now();
    const span = this.#tracer.startSpan(
      `${this.#operation} ${record.mcpTool}`,
      {
        kind: SpanKind.CLIENT,
        startTime: end - record.latencyMs,
        attributes: { 'gen_ai.operation.name': this.#operation, ...tool },
      },
      this.#context,
    );
    if (record.errorCode !== null) {
      span.setAttribute('error.type', record.errorCode);
      span.setStatus({ code: SpanStatusCode.ERROR, message: record.errorCode });
    }
    span.end(end);
  }
}
