import { DependencyUnavailableError } from '../platform/dependency-unavailable.ts';
import type { Storage } from './ports.ts';

/** Whether a driver's error means the database cannot serve us now (as opposed to a bad query). */
export type IsUnavailable = (error: unknown) => boolean;

const DATABASE = 'the database';

/**
 * The storage with every port method guarded: a failure the engine's `isUnavailable` recognises
 * is thrown as DependencyUnavailableError (503 at the edge), with the driver's error as its
 * cause; every other error passes through unchanged. One wrapper per engine, so no adapter
 * method and no route needs a try/catch of its own, and no port can be forgotten.
 */
export function reportUnavailable(storage: Storage, isUnavailable: IsUnavailable): Storage {
  const guard = <T extends object>(port: T) => guardMethods(port, isUnavailable);
  return {
    apps: guard(storage.apps),
    governance: guard(storage.governance),
    usage: guard(storage.usage),
    insights: guard(storage.insights),
    subscribers: guard(storage.subscribers),
    sessionRevocations: guard(storage.sessionRevocations),
    responses: guard(storage.responses),
    batches: { ...guard(storage.batches), upstream: guard(storage.batches.upstream) },
    ping: guard({ ping: storage.ping }).ping,
    close: storage.close,
  };
}

/** An object with the same async methods as `port`, each rethrowing unavailability as its own error. */
function guardMethods<T extends object>(port: T, isUnavailable: IsUnavailable): T {
  const guarded: Record<string, unknown> = {};
  for (const name of methodNames(port)) {
    const method = (port as Record<string, (...args: unknown[]) => unknown>)[name] as (
      ...args: unknown[]
    ) => unknown;
    guarded[name] = async (...args: unknown[]) => {
      try {
        return await method.apply(port, args);
      } catch (error) {
        throw isUnavailable(error) ? new DependencyUnavailableError(DATABASE, error) : error;
      }
    };
  }
  return guarded as T;
}

/** The function-valued properties of an object and its classes (the ports are classes or plain objects). */
function methodNames(port: object): string[] {
  const names = new Set<string>();
  for (let level: object | null = port; level !== null && level !== Object.prototype; ) {
    for (const name of Object.getOwnPropertyNames(level)) {
      if (name !== 'constructor' && typeof (port as Record<string, unknown>)[name] === 'function')
        names.add(name);
    }
    level = Object.getPrototypeOf(level) as object | null;
  }
  return [...names];
}
