import { DependencyUnavailableError } from '../../platform/dependency-unavailable.ts';
import { RemoteError, type RpcPeer } from '../../platform/rpc-peer.ts';
import { ConflictError } from '../governance-ports.ts';
import { AppExistsError, type Storage } from '../ports.ts';

/** The ports of Storage a worker reaches through the primary. */
export const STORAGE_PORTS = [
  'apps',
  'governance',
  'responses',
  'usage',
  'insights',
  'subscribers',
  'sessionRevocations',
  'batches',
] as const satisfies readonly (keyof Storage)[];
export type StoragePort = (typeof STORAGE_PORTS)[number];

/** A port added to Storage and not to STORAGE_PORTS fails the type check here, not a worker at run time. */
type MissingPort = Exclude<keyof Storage, StoragePort | 'ping' | 'close'>;
const NO_PORT_MISSING: [MissingPort] extends [never] ? true : MissingPort = true;
void NO_PORT_MISSING;

/**
 * A storage call waits this long for the primary: longer than any database statement is let run
 * (the embedded database's writes take milliseconds; PostgreSQL is not reached this way).
 */
const STORAGE_TIMEOUT_MS = 30_000;

/**
 * The embedded database as a worker sees it (CONTRACT 6.8): every port's every method runs in the
 * primary, the database's one writer (SQLite takes one writer at a time; its WAL lets readers
 * share, but two processes each writing batches would wait on each other's locks). Stored
 * responses, apps and ledger rows a worker writes are seen by every other worker at once.
 * Methods are found by name at call time, so a port that gains one needs nothing here.
 */
export function coordinatedStorage(link: RpcPeer): Storage {
  const port = (name: StoragePort) =>
    new Proxy(
      {},
      {
        get: (_target, method) =>
          typeof method !== 'string' || method === 'then'
            ? undefined
            : (...args: unknown[]) => callStorage(link, name, method, args),
      },
    );
  const ports = Object.fromEntries(STORAGE_PORTS.map((name) => [name, port(name)]));
  return {
    ...(ports as Pick<Storage, StoragePort>),
    ping: () => callStorage(link, 'ping', 'ping', []) as Promise<void>,
    // The primary closes the database once every worker has ended.
    close: async () => {},
  };
}

async function callStorage(link: RpcPeer, port: string, method: string, args: unknown[]): Promise<unknown> {
  try {
    return await link.call('storage', [port, method, args], STORAGE_TIMEOUT_MS);
  } catch (error) {
    throw localError(error);
  }
}

/** The error classes callers test for, rebuilt from their names; the rest pass as they came. */
function localError(error: unknown): unknown {
  if (!(error instanceof RemoteError)) return new DependencyUnavailableError('the database', error);
  if (error.name === 'AppExistsError') {
    const made = new AppExistsError('');
    made.message = error.message;
    return made;
  }
  if (error.name === 'ConflictError') return new ConflictError(error.message);
  if (error.name === 'DependencyUnavailableError')
    return new DependencyUnavailableError('the database', error);
  return error;
}
