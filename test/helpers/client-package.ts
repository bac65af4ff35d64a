import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The real coding-agent clients live in a test-only package (test/clients/package.json), which
 * `.ci/run` installs after the project's own dependencies; the product never depends on them. A
 * checkout that did not install it still passes `npm test`: the tests that need a client skip,
 * saying which and how to install it.
 */
export const CLIENTS_DIR = join(import.meta.dirname, '..', 'clients');

const INSTALL_HINT = 'npm install --prefix test/clients';

export type ClientName = 'claude' | 'codex' | 'gemini';

const BINARIES: Record<ClientName, { packageName: string; path: string }> = {
  claude: { packageName: '@anthropic-ai/claude-code', path: 'node_modules/.bin/claude' },
  codex: { packageName: '@openai/codex', path: 'node_modules/.bin/codex' },
  gemini: { packageName: '@google/gemini-cli', path: 'node_modules/.bin/gemini' },
};

/** The installed binary of a client, or undefined when the test package is not installed. */
export function clientBinary(name: ClientName): string | undefined {
  const path = join(CLIENTS_DIR, BINARIES[name].path);
  return existsSync(path) ? path : undefined;
}

/** A reason to skip, for `it(..., { skip })`, or false when the client can run. */
export function skipUnlessInstalled(name: ClientName): string | false {
  if (clientBinary(name) !== undefined) return false;
  return `${BINARIES[name].packageName} is not installed (${INSTALL_HINT})`;
}

const requireFromClients = createRequire(join(CLIENTS_DIR, 'package.json'));

function manifestPath(packageName: string): string {
  return join(CLIENTS_DIR, 'node_modules', packageName, 'package.json');
}

/** Whether a library of the test package (such as `@openai/agents`) is installed there. */
export function clientLibraryInstalled(packageName: string): boolean {
  return existsSync(manifestPath(packageName));
}

export function skipUnlessLibraryInstalled(packageName: string): string | false {
  return clientLibraryInstalled(packageName) ? false : `${packageName} is not installed (${INSTALL_HINT})`;
}

/**
 * A library of the test package, loaded from there. Untyped on purpose: a checkout without the
 * package must still type-check, so no test names its types.
 */
export function loadClientLibrary(packageName: string): any {
  return requireFromClients(packageName);
}

/** The version of a package installed in the test package, as its package.json says. */
export function clientPackageVersion(packageName: string): string | undefined {
  if (!clientLibraryInstalled(packageName)) return undefined;
  return (JSON.parse(readFileSync(manifestPath(packageName), 'utf8')) as { version: string }).version;
}

/** A fresh directory under the system's temporary one; `remove` deletes it and what it holds. */
export function makeTempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
