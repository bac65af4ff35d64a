import { after, before } from 'node:test';

/** The part of a test context a harness needs: somewhere to register its own cleanup. */
export interface CleanupContext {
  after(fn: () => unknown): void;
}

interface Closable {
  close(): Promise<void>;
}

/** Starts a harness for one test and closes it when that test ends, pass or fail. */
export async function startForTest<T extends Closable>(
  t: CleanupContext,
  start: () => Promise<T>,
): Promise<T> {
  const harness = await start();
  t.after(() => harness.close());
  return harness;
}

/**
 * Registers `before` and `after` on the enclosing describe: one harness started before its first
 * test and closed after its last. Called while the suite is declared, so the harness does not exist
 * yet; the returned stand-in forwards to it and fails loudly if used outside the suite's tests.
 */
export function startForSuite<T extends Closable>(start: () => Promise<T>): T {
  let harness: T | undefined;
  before(async () => {
    harness = await start();
  });
  after(() => harness?.close());
  return new Proxy({} as T, {
    get(_target, key) {
      if (harness === undefined) throw new Error(`harness used before its suite started (${String(key)})`);
      const value: unknown = Reflect.get(harness, key);
      return typeof value === 'function' ? value.bind(harness) : value;
    },
  });
}
