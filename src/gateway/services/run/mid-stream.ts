import { ApiError } from '../../../platform/errors.ts';
import { isProviderError } from '../../providers/provider-error.ts';
import { toGatewayError } from '../upstream/upstream-error-mapping.ts';

/**
 * What an upstream stream whose client left still owes the books (UpstreamStream, PassThroughStream):
 * the events the upstream had already sent, read for at most this long and this many.
 */
const DRAIN_MS = 250;
const MAX_DRAINED_EVENTS = 10_000;

/**
 * Takes what the upstream had already sent when the client left (the read is aborted, so it hands
 * out what it queued, then fails), starting with `pending` when a read was already made. False
 * when the time ran out with a read still waiting.
 */
export async function drainStream<T>(
  iterator: AsyncIterator<T>,
  pending: IteratorResult<T> | undefined,
  take: (event: T) => unknown,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<'time'>((resolve) => {
    timer = setTimeout(resolve, DRAIN_MS, 'time');
  });
  let waiting = pending;
  try {
    for (let taken = 0; taken < MAX_DRAINED_EVENTS; taken++) {
      const next = waiting ?? (await Promise.race([iterator.next(), timeUp]));
      waiting = undefined;
      if (next === 'time') return false;
      if (next.done) return true;
      take(next.value);
    }
    return true;
  } catch {
    // The aborted read's failure: everything it had was taken.
    return true;
  } finally {
    clearTimeout(timer);
  }
}

/** A stream's failure after its first byte, as the gateway's error naming the provider. */
export function midStreamError(error: unknown, provider: string): ApiError {
  if (isProviderError(error)) {
    return toGatewayError(error, [
      { provider, model: '', status: error.status ?? null, failure: error.failure },
    ]);
  }
  return error instanceof ApiError
    ? error
    : new ApiError('upstream_error', `${provider} failed during the stream`, { cause: error });
}
