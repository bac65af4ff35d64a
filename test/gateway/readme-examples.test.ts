import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { listenForClients } from '../helpers/anthropic-door-client.ts';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';

/**
 * The README's curl examples for the gateway, run as a newcomer runs them, on the default
 * configuration (every slot simulated): each request the README shows is read from the README
 * itself (its path and its `-d` body), sent with an app's key, and answered 200; and its scripts
 * for the OpenAI and Anthropic SDKs, run by Node as written but for the origin. So an example that
 * stops working fails here, not in a newcomer's terminal.
 */
const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

interface Example {
  path: string;
  body: Record<string, unknown>;
}

/** Every `curl … localhost:8787/<path> … -d '<json>'` of the README's shell blocks. */
function gatewayExamples(): Example[] {
  const examples: Example[] = [];
  for (const block of README.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const commands = (block[1] as string).replaceAll('\\\n', ' ').split(/\n(?=curl )/);
    for (const command of commands) {
      const target = /curl [^\n]*?localhost:8787(\/[\w/.-]+)/.exec(command);
      const data = /-d '([\s\S]*?)'/.exec(command);
      if (target === null || data === null) continue;
      examples.push({ path: target[1] as string, body: JSON.parse(data[1] as string) });
    }
  }
  return examples;
}

describe("the README's gateway examples", () => {
  const gw = shareGateway();
  const examples = gatewayExamples();

  it('finds the examples', () => {
    const paths = examples.map((example) => example.path);
    for (const path of ['/v1/chat', '/v1/json', '/v1/chat/completions'])
      assert.ok(paths.includes(path), path);
  });

  it('answers each with 200 on the default slots', async (t) => {
    for (const { path, body } of examples) {
      const reply = await gw.post(path, body, { headers: { authorization: `Bearer ${APP}:${SECRET}` } });
      t.diagnostic(`${path} ${reply.status}`);
      assert.equal(reply.status, 200, `${path}: ${reply.text.slice(0, 500)}`);
    }
  });

  it('gives the tool call its directive asks for, as it says', async () => {
    const example = examples.find((candidate) => JSON.stringify(candidate.body).includes('toolCall'));
    assert.ok(example !== undefined);
    const reply = await gw.post(example.path, example.body, {
      headers: { authorization: `Bearer ${APP}:${SECRET}` },
    });
    const choice = reply.body.choices[0];
    assert.equal(choice.finish_reason, 'tool_calls');
    assert.equal(choice.message.tool_calls[0].function.name, 'get_weather');
    assert.equal(typeof JSON.parse(choice.message.tool_calls[0].function.arguments).city, 'string');
  });

  it('gives no tool call to a request that offers tools with auto and no directive', async () => {
    const example = examples.find((candidate) => JSON.stringify(candidate.body).includes('toolCall'));
    const { metadata: _directive, ...body } = example?.body ?? {};
    const reply = await gw.post(example?.path ?? '', body, {
      headers: { authorization: `Bearer ${APP}:${SECRET}` },
    });
    assert.equal(reply.status, 200);
    assert.equal(reply.body.choices[0].finish_reason, 'stop');
  });
});

/** The README's code blocks in `language` that import `module`. */
function scripts(language: string, module: string): string[] {
  return [...README.matchAll(new RegExp(`\`\`\`${language}\n([\\s\\S]*?)\`\`\``, 'g'))]
    .map((block) => block[1] as string)
    .filter((code) => code.includes(`from '${module}'`));
}

describe("the README's SDK scripts", () => {
  const gw = shareGateway();

  for (const [language, module, extension] of [
    ['js', 'openai', 'mjs'],
    ['ts', '@anthropic-ai/sdk', 'mts'],
  ] as const) {
    it(`runs the ${module} script as written`, async () => {
      const origin = await listenForClients(gw);
      const [code] = scripts(language, module);
      assert.ok(code !== undefined, `a ${language} block importing ${module}`);
      // Beside the package's node_modules, so that its imports resolve as in a newcomer's project.
      const file = join(import.meta.dirname, '..', '..', `readme-example-${process.pid}.${extension}`);
      writeFileSync(file, code.replaceAll('http://localhost:8787', origin));
      try {
        const run = await promisify(execFile)(process.execPath, [file], {
          env: { PATH: process.env.PATH ?? '', GATEWAY_KEY: `${APP}:${SECRET}` },
          timeout: 30_000,
        });
        assert.ok(run.stdout.length > 0 || module !== 'openai', 'it printed the answer');
      } finally {
        rmSync(file, { force: true });
      }
    });
  }
});
