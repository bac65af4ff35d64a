import type { ProviderSlot } from '../../config/config-types.ts';
import type { ContextOverflowFault } from '../domain/agent-fault.ts';

export type ProviderFailure =
  /** The upstream answered with an HTTP error status. */
  | 'http'
  /** No connection could be made, or it broke. */
  | 'connection'
  /** Connect, first-byte or total time ran out. */
  | 'timeout'
  /** The upstream answered 2xx with something the adapter cannot read. */
  | 'invalid_response'
  /** The caller went away; never retried, never reported as the upstream's fault. */
  | 'aborted'
  /**
   * The slot's credential source failed (the AWS chain, Google's auth library, Entra ID): no
   * request was sent. Retryable, so another deployment or slot is tried (CONTRACT 6.4).
   */
  | 'credentials';

const RETRYABLE_STATUS = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

export interface ProviderErrorInit {
  slot: ProviderSlot;
  failure: ProviderFailure;
  status?: number;
  /** Overrides the status-based decision (a quota 429 is not retryable). */
  retryable?: boolean;
  retryAfterMs?: number;
  /** A short, safe description: never the upstream's raw body or a key. */
  detail?: string;
  /**
   * A 400's or 404's own message, with whatever looks like a secret removed (upstream-message.ts):
   * the client is told it, so that it knows what to change (contract 5.2).
   */
  upstreamMessage?: string;
  /**
   * The upstream refused the prompt as longer than the model's context window (its vendor's code
   * or message said so): each door tells its clients in the form they compact on (CONTRACT 6.1).
   */
  overflow?: ContextOverflowFault;
  cause?: unknown;
}

/**
 * The one error type adapters raise. Whether a failure is worth retrying is decided here,
 * in one place, from the failure kind and the upstream status.
 */
export class ProviderError extends Error {
  readonly slot: ProviderSlot;
  readonly failure: ProviderFailure;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly upstreamMessage: string | undefined;
  /** The short, safe description given at construction. */
  readonly detail: string | undefined;
  readonly overflow: ContextOverflowFault | undefined;

  constructor(init: ProviderErrorInit) {
    const where = init.status === undefined ? init.failure : `HTTP ${init.status}`;
    super(`${init.slot} failed (${where})${init.detail ? `: ${init.detail}` : ''}`, { cause: init.cause });
    this.name = 'ProviderError';
    this.slot = init.slot;
    this.failure = init.failure;
    this.status = init.status;
    this.retryAfterMs = init.retryAfterMs;
    this.upstreamMessage = init.upstreamMessage;
    this.detail = init.detail;
    this.overflow = init.overflow;
    this.retryable = init.retryable ?? decideRetryable(init.failure, init.status);
  }
}

function decideRetryable(failure: ProviderFailure, status: number | undefined): boolean {
  switch (failure) {
    case 'connection':
    case 'timeout':
    case 'credentials':
      return true;
    case 'http':
      return status !== undefined && RETRYABLE_STATUS.has(status);
    default:
      return false;
  }
}

export function isProviderError(value: unknown): value is ProviderError {
  return value instanceof ProviderError;
}
