import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { ConfigFileSchema } from '../../src/config/config-file-schema.ts';
import { loadConfig } from '../../src/config/load-config.ts';

/**
 * Every YAML configuration the README and docs/ show (a block whose top-level keys are the
 * configuration file's) loads as the gateway loads its CONFIG_FILE, with the slots' keys in the
 * environment where the docs say to keep them: so an example that names a key the gateway no
 * longer reads, or a value it refuses, fails here rather than at a reader's start-up.
 */
const ROOT = new URL('../../', import.meta.url);
const FILES = [
  'README.md',
  ...readdirSync(new URL('docs/', ROOT))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const CONFIG_KEYS = new Set(Object.keys(ConfigFileSchema.properties));
const KEYS = {
  PROVIDER_A_API_KEY: 'key-a-0123456789',
  PROVIDER_B_API_KEY: 'key-b-0123456789',
  PROVIDER_C_API_KEY: 'key-c-0123456789',
};

function configExamples(): { file: string; text: string }[] {
  const examples: { file: string; text: string }[] = [];
  for (const file of FILES) {
    for (const block of readFileSync(new URL(file, ROOT), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)) {
      const text = block[1] as string;
      const parsed = parse(text) as unknown;
      if (typeof parsed !== 'object' || parsed === null) continue;
      if (Object.keys(parsed).every((key) => CONFIG_KEYS.has(key))) examples.push({ file, text });
    }
  }
  return examples;
}

describe("the docs' configuration examples", () => {
  const examples = configExamples();

  it('are found (the README and configuration.md hold several)', () => {
    assert.ok(examples.length >= 5, `${examples.length} examples`);
    assert.ok(examples.some((example) => example.file === 'docs/configuration.md'));
  });

  it('each loads as a CONFIG_FILE', () => {
    for (const { file, text } of examples) {
      const path = join(mkdtempSync(join(tmpdir(), 'docs-config-')), 'gateway.yaml');
      writeFileSync(path, text);
      assert.doesNotThrow(
        () => loadConfig({ CONFIG_FILE: path, DATA_DIR: ':memory:', ...KEYS }, []),
        `${file}:\n${text}`,
      );
    }
  });
});
