import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { configFailure } from '../../test/helpers/config-failure.ts';
import { loadConfig } from './load-config.ts';

function fileWith(guardrails: unknown, extra: Record<string, unknown> = {}): Record<string, string> {
  const path = join(mkdtempSync(join(tmpdir(), 'guards-')), 'config.yaml');
  writeFileSync(path, stringify({ ...extra, guardrails }));
  return { CONFIG_FILE: path };
}

const ROUTING = { routing: { tasks: { summarise: [{ provider: 'provider-a' }] } } };

describe('guardrails in the configuration', () => {
  it('has none by default', () => {
    assert.deepEqual(loadConfig({}, []).guardrails, { guards: [], apps: {}, teams: {}, routes: {} });
  });

  it('reads each type with its defaults, and the attachments', () => {
    const { guardrails } = loadConfig(
      fileWith(
        {
          guards: {
            secrets: { type: 'secrets', phase: ['input', 'output'], action: 'block' },
            cards: { type: 'pii', phase: 'output', action: 'mask', detectors: ['CARD', 'IBAN'] },
            employee_id: { type: 'regex', phase: 'input', action: 'mask', pattern: 'EMP-[0-9]{6}' },
            codenames: { type: 'words', phase: 'mcp', action: 'log', words: ['falcon'] },
            review: { type: 'webhook', phase: 'input', url: 'http://127.0.0.1:9/check' },
          },
          apps: { agent: ['secrets', 'cards'] },
          teams: { platform: ['employee_id', 'codenames'] },
          routes: { default: ['review'], summarise: ['secrets'] },
        },
        ROUTING,
      ),
      [],
    );
    assert.equal(guardrails.guards.length, 5);
    assert.deepEqual(guardrails.guards[0], {
      name: 'secrets',
      type: 'secrets',
      phases: ['input', 'output'],
      action: 'block',
      detectors: [
        'AWS_ACCESS_KEY',
        'GITHUB_TOKEN',
        'OPENAI_KEY',
        'ANTHROPIC_KEY',
        'GOOGLE_API_KEY',
        'SLACK_TOKEN',
        'JWT',
        'PRIVATE_KEY',
      ],
    });
    assert.deepEqual(guardrails.guards[4], {
      name: 'review',
      type: 'webhook',
      phases: ['input'],
      action: 'block',
      url: 'http://127.0.0.1:9/check',
      headers: {},
      timeoutMs: 1000,
      failureMode: 'closed',
      maxResponseBytes: 1_048_576,
    });
    assert.deepEqual(guardrails.routes, { default: ['review'], summarise: ['secrets'] });
  });

  const refusals: [string, unknown, RegExp][] = [
    [
      'a pattern that is not linear-time',
      {
        guards: { g: { type: 'regex', phase: 'input', action: 'block', pattern: '(a+)\\1' } },
        apps: { x: ['g'] },
      },
      /guardrails\.guards\.g\.pattern is not a linear-time pattern/,
    ],
    [
      'a lookahead',
      {
        guards: { g: { type: 'regex', phase: 'input', action: 'block', pattern: 'key(?=:)' } },
        apps: { x: ['g'] },
      },
      /guardrails\.guards\.g\.pattern is not a linear-time pattern/,
    ],
    [
      'a pattern too large',
      {
        guards: { g: { type: 'regex', phase: 'input', action: 'block', pattern: 'a'.repeat(1001) } },
        apps: { x: ['g'] },
      },
      /guardrails\.guards\.g\.pattern is 1001 characters long/,
    ],
    [
      'an unknown detector',
      {
        guards: { g: { type: 'pii', phase: 'input', action: 'mask', detectors: ['PASSPORT'] } },
        apps: { x: ['g'] },
      },
      /guardrails\.guards\.g\.detectors has 'PASSPORT', which is no pii detector/,
    ],
    [
      'a guard attached to nothing',
      { guards: { lonely: { type: 'secrets', phase: 'input', action: 'block' } } },
      /guardrails\.guards\.lonely is attached to nothing/,
    ],
    [
      'an attachment naming an unknown guard',
      {
        guards: { g: { type: 'secrets', phase: 'input', action: 'block' } },
        apps: { x: ['g'] },
        teams: { t: ['ghost'] },
      },
      /guardrails\.teams\.t names the guard 'ghost'/,
    ],
    [
      'a route that is no task',
      { guards: { g: { type: 'secrets', phase: 'input', action: 'block' } }, routes: { nowhere: ['g'] } },
      /guardrails\.routes\.nowhere names no task/,
    ],
    [
      'a guard without an action',
      { guards: { g: { type: 'secrets', phase: 'input' } }, apps: { x: ['g'] } },
      /guardrails\.guards\.g\.action is required/,
    ],
    [
      "another type's setting",
      { guards: { g: { type: 'words', phase: 'input', action: 'mask', pattern: 'x' } }, apps: { x: ['g'] } },
      /guardrails\.guards\.g\.pattern is not a setting of a words guard/,
    ],
    [
      'a webhook without a URL',
      { guards: { g: { type: 'webhook', phase: 'input' } }, apps: { x: ['g'] } },
      /guardrails\.guards\.g\.url is required/,
    ],
  ];
  for (const [name, guardrails, message] of refusals) {
    it(`refuses ${name}, naming it`, () => {
      assert.match(configFailure(fileWith(guardrails, ROUTING)).message, message);
    });
  }

  it('refuses an unknown guard type through the file schema', () => {
    const error = configFailure(
      fileWith({ guards: { g: { type: 'antivirus', phase: 'input', action: 'block' } } }),
    );
    assert.match(error.message, /guardrails/);
  });
});
