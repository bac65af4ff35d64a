import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { GATEWAY_ERRORS, SITE_ERRORS } from '../../src/platform/errors.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every file under the folders, repository-relative, without installed packages (the test-only
 * client package under test/clients has its own node_modules once `.ci/run` installed it). */
function listFiles(...folders: string[]): string[] {
  return folders.flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
      .filter((path) => !path.split(/[\\/]/).includes('node_modules')),
  );
}

/** Names held by more than one path, each with its paths. */
function sharedNames(paths: readonly string[]): [string, string[]][] {
  const byName = new Map<string, string[]>();
  for (const path of paths) {
    const name = basename(path);
    byName.set(name, [...(byName.get(name) ?? []), path]);
  }
  return [...byName].filter(([, holders]) => holders.length > 1);
}

/** Production files of a surface (tests may name any code, to check it is refused). */
function productionSources(folder: string): string[] {
  return listFiles(folder).filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts'));
}

/** The error codes a file names as string literals. */
function codesNamed(path: string, codes: readonly string[]): string[] {
  const text = readFileSync(join(ROOT, path), 'utf8');
  return codes.filter((code) => text.includes(`'${code}'`));
}

describe('names', () => {
  it('no two source files of src/ and test/ share a name: a name finds one file', () => {
    // Source, not data: recorded fixtures of two vendors may well share a name (chat.json).
    const files = listFiles('src', 'test').filter((path) => /\.(ts|js|sql)$/.test(path));
    assert.ok(files.length > 300, `only ${files.length} files read`);
    assert.deepEqual(sharedNames(files), []);
  });

  it('finds a shared name when there is one', () => {
    assert.deepEqual(sharedNames(['src/a/x.ts', 'src/b/x.ts', 'src/b/y.ts']), [
      ['x.ts', ['src/a/x.ts', 'src/b/x.ts']],
    ]);
  });

  it("neither surface answers with the other's own error codes", () => {
    const gatewayOnly = Object.keys(GATEWAY_ERRORS);
    const siteOnly = Object.keys(SITE_ERRORS);
    const crossings = [
      ...productionSources('src/site').flatMap((path) =>
        codesNamed(path, gatewayOnly).map((code) => `${path}: ${code}`),
      ),
      ...productionSources('src/gateway').flatMap((path) =>
        codesNamed(path, siteOnly).map((code) => `${path}: ${code}`),
      ),
    ];
    assert.deepEqual(crossings, []);
    // The check sees a code where one is named.
    assert.deepEqual(codesNamed('src/site/newsletter/newsletter-service.ts', siteOnly), ['upstream_failure']);
  });
});
