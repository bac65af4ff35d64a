import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { configFailure } from '../../test/helpers/config-failure.ts';
import { loadConfig } from './load-config.ts';

function yamlFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'config.yaml');
  writeFileSync(path, text);
  return path;
}

const TWO = `
providers:
  provider-a:
    kind: openai
    apiKey: sk-slot-key
    strategy: least-busy
    models: [gpt-4o]
    deployments:
      - { name: east, baseUrl: https://east.example.com/v1, apiKey: sk-east-key, weight: 2, region: us-east-1 }
      - { name: west, baseUrl: https://west.example.com/v1, models: [gpt-4.1, gpt-4o] }
`;

describe('deployments in the configuration', () => {
  it('reads the YAML form: the slot key for a deployment without one, weight 1 by default, models joined', () => {
    const slot = loadConfig({ CONFIG_FILE: yamlFile(TWO) }, []).providers['provider-a'];
    assert.equal(slot.strategy, 'least-busy');
    const plain = slot.deployments.map(({ cloud, modelMap, kind, ...rest }) => {
      assert.equal(kind, 'openai');
      assert.deepEqual(modelMap, {});
      return rest;
    });
    assert.deepEqual(plain, [
      {
        name: 'east',
        baseUrl: 'https://east.example.com/v1',
        apiKey: 'sk-east-key',
        weight: 2,
        region: 'us-east-1',
        models: undefined,
      },
      {
        name: 'west',
        baseUrl: 'https://west.example.com/v1',
        apiKey: 'sk-slot-key',
        weight: 1,
        region: undefined,
        models: ['gpt-4.1', 'gpt-4o'],
      },
    ]);
    assert.deepEqual(slot.models, ['gpt-4o', 'gpt-4.1']);
  });

  it('leaves a slot without deployments as it was: no list, strategy weighted', () => {
    const slot = loadConfig({}, []).providers['provider-b'];
    assert.deepEqual(slot.deployments, []);
    assert.equal(slot.strategy, 'weighted');
  });

  it('reads the environment form, which replaces the file list', () => {
    const config = loadConfig(
      {
        CONFIG_FILE: yamlFile(TWO),
        PROVIDER_A_DEPLOYMENTS:
          ' a=http://10.0.0.1:8000/v1 , b=http://10.0.0.2:8000/v1;weight=0.5;region=lab;models=llama|qwen;apiKey=k-b ',
        PROVIDER_A_STRATEGY: 'LATENCY',
      },
      [],
    );
    const slot = config.providers['provider-a'];
    assert.equal(slot.strategy, 'latency');
    assert.deepEqual(
      slot.deployments.map((d) => [d.name, d.baseUrl, d.apiKey, d.weight, d.region, d.models]),
      [
        ['a', 'http://10.0.0.1:8000/v1', 'sk-slot-key', 1, undefined, undefined],
        ['b', 'http://10.0.0.2:8000/v1', 'k-b', 0.5, 'lab', ['llama', 'qwen']],
      ],
    );
  });

  it('checks each deployment key by its kind, and needs none from the slot then', () => {
    const anthropic = {
      PROVIDER_B_KIND: 'anthropic',
      PROVIDER_B_DEPLOYMENTS: 'one=https://a.example.com;apiKey=k1,two=https://b.example.com;apiKey=k2',
    };
    assert.deepEqual(
      loadConfig(anthropic, []).providers['provider-b'].deployments.map((d) => d.apiKey),
      ['k1', 'k2'],
    );
    assert.match(
      configFailure({
        ...anthropic,
        PROVIDER_B_DEPLOYMENTS: 'one=https://a.example.com;apiKey=k1,two=https://b.example.com',
      }).message,
      /PROVIDER_B_DEPLOYMENTS \(two\) is required for anthropic/,
    );
    // OpenAI's own service needs a key; a local server does not.
    const openai = { PROVIDER_A_KIND: 'openai' };
    assert.equal(
      loadConfig({ ...openai, PROVIDER_A_DEPLOYMENTS: 'local=http://localhost:11434/v1' }, []).providers[
        'provider-a'
      ].deployments[0]?.apiKey,
      undefined,
    );
    assert.match(
      configFailure({ ...openai, PROVIDER_A_DEPLOYMENTS: 'cloud=https://api.openai.com/v1' }).message,
      /PROVIDER_A_DEPLOYMENTS \(cloud\) is required for api\.openai\.com/,
    );
  });

  const refused: [string, Record<string, string>, RegExp][] = [
    [
      'a name listed twice',
      { PROVIDER_A_DEPLOYMENTS: 'a=http://x.example,a=http://y.example' },
      /'a' is listed twice/,
    ],
    ['a bad name', { PROVIDER_A_DEPLOYMENTS: 'us east=http://x.example' }, /entry 1: the name must be/],
    ['no base URL', { PROVIDER_A_DEPLOYMENTS: 'east' }, /entry 1 \(east\): expected name=baseUrl/],
    [
      'a base URL that is not one',
      { PROVIDER_A_DEPLOYMENTS: 'east=not-a-url' },
      /\(east\) is not a valid URL/,
    ],
    [
      'an unknown attribute',
      { PROVIDER_A_DEPLOYMENTS: 'east=http://x.example;colour=red' },
      /unknown attribute 'colour'/,
    ],
    [
      'a bad weight',
      { PROVIDER_A_DEPLOYMENTS: 'east=http://x.example;weight=-1' },
      /weight must be a number/,
    ],
    ['only weights of 0', { PROVIDER_A_DEPLOYMENTS: 'east=http://x.example;weight=0' }, /weight above 0/],
    ['an empty list', { PROVIDER_A_DEPLOYMENTS: ' , ' }, /lists no deployment/],
    ['a bad strategy', { PROVIDER_A_STRATEGY: 'round-robin' }, /PROVIDER_A_STRATEGY must be one of weighted/],
  ];
  for (const [what, env, message] of refused) {
    it(`refuses ${what}, naming the variable`, () => {
      const error = configFailure({ PROVIDER_A_KIND: 'openai', ...env });
      assert.match(error.message, message);
      assert.match(error.message, /PROVIDER_A_/);
    });
  }

  it('refuses deployments on the simulated provider, and a bad file entry by its path', () => {
    assert.match(
      configFailure({ PROVIDER_C_DEPLOYMENTS: 'a=http://x.example' }).message,
      /PROVIDER_C_DEPLOYMENTS cannot be set: the simulated provider has no upstream/,
    );
    const twice = yamlFile(
      'providers:\n  provider-a:\n    kind: openai\n    deployments:\n      - { name: a, baseUrl: "http://x.example" }\n      - { name: a, baseUrl: "http://y.example" }\n',
    );
    assert.match(
      configFailure({ CONFIG_FILE: twice }).message,
      /providers\.provider-a\.deployments\.1\.name/,
    );
    const noUrl = yamlFile(
      'providers:\n  provider-a:\n    kind: openai\n    deployments:\n      - { name: a }\n',
    );
    assert.match(configFailure({ CONFIG_FILE: noUrl }).message, /deployments\.0.*baseUrl/);
  });

  it('never puts a deployment key into an error message', () => {
    const message = configFailure({
      PROVIDER_A_KIND: 'openai',
      PROVIDER_A_DEPLOYMENTS:
        'a=http://x.example;apiKey=sk-live-secret,a=http://y.example;apiKey=sk-live-other',
    }).message;
    assert.doesNotMatch(message, /sk-live/);
  });
});
