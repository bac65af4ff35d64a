import type { TracingSettings } from '../../../config/config-types.ts';
import type { Operation } from '../../../storage/ports.ts';
import type { ProviderRegistry } from '../../providers/registry.ts';
import type { RunTrace } from '../../services/run/request-run-trace.ts';

/** What the HTTP layer knows when a request arrives. */
export interface RequestSpanStart {
  method: string;
  /** The route's pattern (`/v1/chat`); undefined for a request no route matched. */
  route: string | undefined;
  path: string;
  requestId: string;
  headers: Record<string, string | string[] | undefined>;
}

/** The span of one HTTP request. */
export interface RequestSpan {
  traceId: string;
  spanId: string;
  /** The run's view of the span: child spans per upstream call, GenAI attributes at the end. */
  forRun(operation: Operation): RunTrace;
  end(statusCode: number, clientLeft: boolean): void;
}

export interface GatewayTracing {
  startRequest(start: RequestSpanStart): RequestSpan;
  /** Exports what is waiting (tests). */
  flush(): Promise<void>;
  /** Exports what is waiting and stops. */
  shutdown(): Promise<void>;
}

/**
 * Tracing, when configured. The OpenTelemetry SDK and exporters are imported here, on demand:
 * without an endpoint none of it is loaded, so an instance that does not trace keeps its memory.
 */
export async function startTracing(
  settings: TracingSettings | undefined,
  registry: ProviderRegistry,
  version: string,
): Promise<GatewayTracing | undefined> {
  if (settings === undefined) return undefined;
  const { startOtelTracing } = await import('./otel-tracing.ts');
  return startOtelTracing(settings, registry, version);
}
