import {
  type Attributes,
  type Context,
  defaultTextMapGetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  detectResources,
  resourceAttributesEnvDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { TracingSettings } from '../../../config/config-types.ts';
import type { Operation } from '../../../storage/ports.ts';
import type { ProviderRegistry } from '../../providers/registry.ts';
import type { RunTrace } from '../../services/run/request-run-trace.ts';
import { GEN_AI_PROVIDER_NAME } from '../gen-ai-names.ts';
import type { GatewayTracing, RequestSpan, RequestSpanStart } from './gateway-tracing.ts';
import { OtelRunTrace } from './otel-run-trace.ts';

/**
 * The OpenTelemetry side of tracing, loaded (with the SDK) only when an OTLP endpoint is set: a
 * tracer provider with the configured sampler, a batch processor and the OTLP/HTTP exporter of
 * the configured encoding. No global provider or context manager is installed: spans are parented
 * explicitly, so nothing else in the process is instrumented by accident.
 */
export async function startOtelTracing(
  settings: TracingSettings,
  registry: ProviderRegistry,
  version: string,
): Promise<GatewayTracing> {
  const exporter = await createExporter(settings);
  const detected = detectResources({ detectors: [resourceAttributesEnvDetector] });
  const resource = detected.merge(
    resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': version }),
  );
  const provider = new TracerProvider({
    resource,
    sampler: createSampler(settings),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer('inference-gateway', version);
  const vendorOf = (slot: Parameters<ProviderRegistry['adapter']>[0]) =>
    GEN_AI_PROVIDER_NAME[registry.adapter(slot).kind];
  return {
    startRequest: (start) => startRequestSpan(tracer, start, vendorOf),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

async function createExporter(settings: TracingSettings): Promise<SpanExporter> {
  if (settings.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter({ url: settings.url });
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter({ url: settings.url });
}

function createSampler(settings: TracingSettings): Sampler {
  const ratio = () => new TraceIdRatioBasedSampler(settings.ratio);
  switch (settings.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

const propagator = new W3CTraceContextPropagator();

function startRequestSpan(
  tracer: Tracer,
  start: RequestSpanStart,
  vendorOf: (slot: Parameters<ProviderRegistry['adapter']>[0]) => string,
): RequestSpan {
  // An incoming W3C traceparent (and tracestate) continues the caller's trace.
  const parent = propagator.extract(ROOT_CONTEXT, start.headers, defaultTextMapGetter);
  const attributes: Attributes = {
    'http.request.method': start.method,
    'url.path': start.path,
    'gateway.request_id': start.requestId,
  };
  if (start.route !== undefined) attributes['http.route'] = start.route;
  const span = tracer.startSpan(
    start.route === undefined ? start.method : `${start.method} ${start.route}`,
    { kind: SpanKind.SERVER, attributes },
    parent,
  );
  const context: Context = trace.setSpan(ROOT_CONTEXT, span);
  const { traceId, spanId } = span.spanContext();
  let run: OtelRunTrace | undefined;
  return {
    traceId,
    spanId,
    forRun: (operation: Operation): RunTrace => {
      run = new OtelRunTrace(tracer, span, context, operation, vendorOf);
      return run;
    },
    end: (statusCode: number, clientLeft: boolean) =>
      endRequestSpan(span, statusCode, clientLeft, run?.errorType !== undefined),
  };
}

function endRequestSpan(span: Span, statusCode: number, clientLeft: boolean, described: boolean): void {
  span.setAttribute('http.response.status_code', statusCode);
  if (clientLeft) span.setAttribute('gateway.client_closed', true);
  // A server span is in error for 5xx answers only (the HTTP conventions): 4xx are the client's.
  // The run's error code, when it set one, says more than the status.
  if (statusCode >= 500 && !described) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute('error.type', String(statusCode));
  }
  span.end();
}
