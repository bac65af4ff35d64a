import type { ProviderSlot } from '../../config/config-types.ts';
import type { Operation, UsageAttempt } from '../../storage/ports.ts';
import type { Admission } from '../limits/app-limiter.ts';

/** Everything one gateway request carries through the services. */
export interface RequestScope {
  /** The response id, known from the start so a stream's `start` event can carry it. */
  id: string;
  requestId: string;
  app: string;
  operation: Operation;
  task: string | undefined;
  metadata: Readonly<Record<string, unknown>> | undefined;
  /** Monotonic ms when the request reached the gateway. */
  startedAt: number;
  /** Epoch ms when the request reached the gateway. */
  receivedAt: number;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Every upstream call made so far, in order. */
  attempts: UsageAttempt[];
  /** Calls made so far per slot: the `attempt` number the next call to that slot gets. */
  callsBySlot: Map<ProviderSlot, number>;
  /** Monotonic ms of the first upstream byte of the answer that was used. */
  upstreamFirstByteAt: number | undefined;
  /** Monotonic ms when the upstream answer that was used finished. */
  upstreamDoneAt: number | undefined;
  /** The app's limit reservation, settled when the request is recorded. */
  admission: Admission | undefined;
  /** Headers the answer must carry (RateLimit fields). */
  responseHeaders: Record<string, string>;
}

/** What the route knows when it creates a scope; the rest starts empty. */
export type ScopeInit = Pick<
  RequestScope,
  'id' | 'requestId' | 'app' | 'operation' | 'task' | 'metadata' | 'startedAt' | 'receivedAt' | 'signal'
>;

export function createScope(init: ScopeInit): RequestScope {
  return {
    ...init,
    attempts: [],
    callsBySlot: new Map(),
    upstreamFirstByteAt: undefined,
    upstreamDoneAt: undefined,
    admission: undefined,
    responseHeaders: {},
  };
}

/** The `attempt` number of the next call to `slot`, counting it. */
export function takeAttemptNumber(scope: RequestScope, slot: ProviderSlot): number {
  const attempt = scope.callsBySlot.get(slot) ?? 0;
  scope.callsBySlot.set(slot, attempt + 1);
  return attempt;
}
