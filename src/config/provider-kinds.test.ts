import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { configFailure } from '../../test/helpers/config-failure.ts';
import { loadConfig } from './load-config.ts';
import { PROVIDER_KIND_ROWS, PROVIDER_KINDS, type ProviderKindRow } from './provider-kinds.ts';

const rows = Object.entries(PROVIDER_KIND_ROWS) as [keyof typeof PROVIDER_KIND_ROWS, ProviderKindRow][];

/** What a cloud kind needs besides its kind (CONTRACT 6.4): the resource, the region, the project. */
function required(kind: string, slot: 'B' | 'C'): Record<string, string> {
  if (kind === 'azure') return { [`PROVIDER_${slot}_BASE_URL`]: 'https://res.openai.azure.com' };
  if (kind === 'bedrock') return { [`PROVIDER_${slot}_REGION`]: 'us-east-1' };
  if (kind === 'vertex')
    return { [`PROVIDER_${slot}_PROJECT`]: 'p', [`PROVIDER_${slot}_LOCATION`]: 'global' };
  return {};
}

describe('provider kind rows', () => {
  it('are one per kind, in the order of PROVIDER_KINDS', () => {
    assert.deepEqual(Object.keys(PROVIDER_KIND_ROWS), [...PROVIDER_KINDS]);
  });

  for (const [kind, row] of rows) {
    it(`${kind}: the loader takes the slot's defaults from the row`, () => {
      const env: Record<string, string> = {
        PROVIDER_B_KIND: kind,
        PROVIDER_B_API_KEY: 'k',
        ...required(kind, 'B'),
      };
      const slot = loadConfig(env, []).providers['provider-b'];
      assert.equal(slot.kind, kind);
      assert.equal(slot.baseUrl, env.PROVIDER_B_BASE_URL ?? row.baseUrl);
      assert.equal(slot.chatModel, row.chatModel);
      assert.equal(slot.embedModel, row.embedModel);
    });

    it(`${kind}: the loader applies the row's key rule (${row.apiKey})`, () => {
      const keyless = { PROVIDER_B_KIND: kind, ...required(kind, 'B') };
      if (kind === 'azure') {
        // Azure's key rule is its own: a key, or an Entra ID client (read-cloud-settings.ts).
        assert.match(configFailure(keyless).message, /apiKey or an `azure` Entra ID block is required/);
        return;
      }
      if (row.apiKey === 'never') {
        assert.equal(loadConfig(keyless, []).providers['provider-b'].apiKey, undefined);
        return;
      }
      assert.match(configFailure(keyless).message, /^Invalid configuration: PROVIDER_B_API_KEY is required/);
      if (row.apiKey === 'at-default-base-url') {
        const local = loadConfig({ ...keyless, PROVIDER_B_BASE_URL: 'http://localhost:11434/v1' }, []);
        assert.equal(local.providers['provider-b'].apiKey, undefined);
      }
    });

    it(`${kind}: an embedding model is ${row.capabilities.embed ? 'taken' : 'refused'} as the row's capabilities say`, () => {
      const env = {
        PROVIDER_C_KIND: kind,
        PROVIDER_C_API_KEY: 'k',
        PROVIDER_C_EMBED_MODEL: 'some-embedder',
        ...required(kind, 'C'),
      };
      if (row.capabilities.embed) {
        assert.equal(loadConfig(env, []).providers['provider-c'].embedModel, 'some-embedder');
      } else {
        assert.match(
          configFailure(env).message,
          new RegExp(`PROVIDER_C_EMBED_MODEL cannot be set: ${row.vendor}`),
        );
      }
    });
  }

  it('keep the messages of before for the vendors users know', () => {
    assert.equal(
      configFailure({ PROVIDER_A_KIND: 'openai' }).message,
      'Invalid configuration: PROVIDER_A_API_KEY is required for api.openai.com (set a BASE_URL for a keyless local server)',
    );
    assert.equal(
      configFailure({ PROVIDER_A_KIND: 'gemini' }).message,
      'Invalid configuration: PROVIDER_A_API_KEY is required when PROVIDER_A_KIND is gemini',
    );
    assert.equal(
      configFailure({ PROVIDER_A_KIND: 'anthropic', PROVIDER_A_API_KEY: 'k', PROVIDER_A_EMBED_MODEL: 'e' })
        .message,
      'Invalid configuration: PROVIDER_A_EMBED_MODEL cannot be set: Anthropic has no embeddings API',
    );
  });

  it('are what docs/configuration.md says under "Defaults per provider kind"', () => {
    const text = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');
    const section = text.split('### Defaults per provider kind')[1]?.split('\n## ')[0] ?? '';
    const documented = new Map<string, string[]>();
    for (const line of section.split('\n').filter((l) => l.startsWith('| `'))) {
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      // A cell's value is its first backticked word; "none" or "(none: …)" is no value.
      const values = cells.map((cell) => /^`([^`]+)`/.exec(cell)?.[1] ?? '');
      documented.set(values[0] ?? '', values.slice(1));
    }
    for (const [kind, row] of rows) {
      assert.deepEqual(documented.get(kind), [row.baseUrl ?? '', row.chatModel, row.embedModel ?? ''], kind);
    }
    assert.equal(documented.size, rows.length);
  });
});
