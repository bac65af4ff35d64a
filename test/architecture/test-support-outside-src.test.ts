import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildServer } from '../../scripts/build-server.ts';

// src/ is what the build ships to dist/; test support kept there ships with it. This check keeps the
// line where the architecture issue drew it: a file under src/ that only tests import belongs in test/.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCE = /\.(ts|js)$/;
const RELATIVE_SPECIFIER = /(?:from\s+|import\s*\(\s*|new URL\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function listSources(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((path) => SOURCE.test(path) && !path.endsWith('.d.ts') && !path.includes('node_modules'))
    .map((path) => join(ROOT, folder, path));
}

function isTestCode(file: string): boolean {
  return file.endsWith('.test.ts') || relative(ROOT, file).startsWith('test/');
}

/** Every source file that imports each file, by absolute path. */
function mapImporters(files: string[]): Map<string, string[]> {
  const importers = new Map<string, string[]>();
  for (const file of files) {
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(RELATIVE_SPECIFIER)) {
      const target = resolve(dirname(file), specifier ?? '');
      importers.set(target, [...(importers.get(target) ?? []), file]);
    }
  }
  return importers;
}

describe('test support lives outside src/', () => {
  it('no file under src/ is imported by tests alone', () => {
    const files = ['src', 'test', 'scripts', 'bench'].flatMap(listSources);
    const importers = mapImporters(files);
    const testOnly = files
      .filter((file) => relative(ROOT, file).startsWith('src/') && !isTestCode(file))
      .filter((file) => {
        const by = importers.get(file) ?? [];
        // Entry points (main.ts, the CLIs) are imported by nothing and ship on purpose.
        return by.length > 0 && by.every(isTestCode);
      })
      .map((file) => relative(ROOT, file));
    assert.deepEqual(testOnly, [], 'move these to test/helpers/');
  });

  it('the build bundles no test code and nothing from test/, and leaves no former build behind', async () => {
    mkdirSync(join(ROOT, 'bench', 'results', 'tmp'), { recursive: true });
    const outDir = mkdtempSync(join(ROOT, 'bench', 'results', 'tmp', 'bundle-'));
    try {
      // What an earlier build left: a chunk of other contents, tsc's per-module tree; and the
      // dashboard's bundle, which another script builds.
      mkdirSync(join(outDir, 'gateway'));
      mkdirSync(join(outDir, 'dashboard'));
      writeFileSync(join(outDir, 'chunk-FORMER.js'), '');
      writeFileSync(join(outDir, 'gateway', 'chat-route.js'), '');
      writeFileSync(join(outDir, 'dashboard', 'dashboard.js'), '');
      const inputs = Object.keys((await buildServer(outDir)).inputs);
      assert.ok(inputs.includes('src/main.ts'), inputs.slice(0, 5).join(', '));
      const testCode = inputs.filter(
        (input) => !input.startsWith('node_modules/') && isTestCode(join(ROOT, input)),
      );
      assert.deepEqual(testCode, []);
      const left = readdirSync(outDir);
      assert.ok(
        left.includes('main.js') && left.includes('ledger-writer-worker.js') && left.includes('migrations'),
      );
      assert.ok(!left.includes('chunk-FORMER.js') && !left.includes('gateway'), left.join(', '));
      assert.ok(existsSync(join(outDir, 'dashboard', 'dashboard.js')), 'the dashboard stays');
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  });
});
