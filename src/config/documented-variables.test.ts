import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { CONFIG_FILE_VARIABLE, ENV_VARIABLES } from './env-variables.ts';
import { loadConfig } from './load-config.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');

/** The variable names in the first column of docs/configuration.md's environment table. */
function documentedVariables(): Set<string> {
  const text = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
  const section = text.split('## Environment variables')[1]?.split('\n## ')[0] ?? '';
  const names = new Set<string>();
  for (const line of section.split('\n')) {
    const firstCell = line.startsWith('| `') ? line.split('|')[1] : undefined;
    for (const [, name] of firstCell?.matchAll(/`([A-Z][A-Z0-9_]*)`/g) ?? []) names.add(name as string);
  }
  return names;
}

/** Every name loadConfig looks up, seen through an environment that records its reads. */
function variablesRead(env: Record<string, string>): Set<string> {
  const read = new Set<string>();
  const recording = new Proxy(env, {
    get(target, name) {
      if (typeof name === 'string') read.add(name);
      return Reflect.get(target, name);
    },
  });
  loadConfig(recording, []);
  return read;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('environment variables', () => {
  const tableNames = [CONFIG_FILE_VARIABLE, ...ENV_VARIABLES.map((variable) => variable.name)];

  it('are all read through the table: loadConfig reads no name the table does not have', () => {
    // Every slot bound to a real kind too, so reads that depend on the kind would show.
    for (const kind of ['simulated', 'openai', 'gemini']) {
      const env = {
        PROVIDER_A_KIND: kind,
        PROVIDER_A_API_KEY: 'k',
        PROVIDER_B_KIND: kind,
        PROVIDER_B_API_KEY: 'k',
      };
      assert.deepEqual([...variablesRead(env)].sort(), [...tableNames].sort());
    }
  });

  it('are each documented in docs/configuration.md, and every documented one is read', () => {
    const documented = documentedVariables();
    const missing = tableNames.filter((name) => !documented.has(name));
    assert.deepEqual(missing, [], `add these to the table in docs/configuration.md: ${missing.join(', ')}`);
    const unread = [...documented].filter((name) => !tableNames.includes(name));
    assert.deepEqual(unread, [], `documented but never read: ${unread.join(', ')}`);
  });

  it('are each named once in the table', () => {
    assert.equal(new Set(tableNames).size, tableNames.length);
  });

  it('are read only by src/config/', () => {
    const readers = sourceFiles(SRC)
      .filter((file) => !relative(SRC, file).startsWith('config'))
      .filter((file) => /process\.env\b/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file));
    assert.deepEqual(readers, []);
  });
});
