import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The W3C trace context of the upstream call in progress, for `UpstreamHttp` to send as
 * `traceparent` (and `tracestate`). The caller runs each traced attempt inside `withTraceHeaders`;
 * adapters, which build the requests, need not know. Without tracing the storage is never made
 * and a call pays one comparison.
 */
export interface TraceHeaders {
  traceparent: string;
  tracestate?: string;
}

let storage: AsyncLocalStorage<TraceHeaders> | undefined;

export function withTraceHeaders<T>(headers: TraceHeaders, call: () => T): T {
  storage ??= new AsyncLocalStorage();
  return storage.run(headers, call);
}

export function currentTraceHeaders(): TraceHeaders | undefined {
  return storage?.getStore();
}
