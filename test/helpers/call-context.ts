import type { CallContext } from '../../src/gateway/providers/provider.ts';

/** The context an adapter's call gets, for the adapters' tests: request `req-test`, first attempt. */
export function callContext(signal: AbortSignal = new AbortController().signal): CallContext {
  return { signal, requestId: 'req-test', attempt: 0, metadata: undefined };
}
