import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { summarizeAnthropicRequest } from '../../helpers/anthropic-request-summary.ts';
import { clientPackageVersion, makeTempDir } from '../../helpers/client-package.ts';
import {
  type ClientRequestFixture,
  toClientRequestFixture,
  UUID_PATTERN,
  writeClientFixture,
} from '../../helpers/client-request-fixture.ts';
import { APP, createGateway, SECRET } from '../../helpers/gateway-harness.ts';
import { type ScriptedReply, startMockAnthropic } from '../../helpers/mock-anthropic-server.ts';
import { runClaude } from '../../helpers/run-claude.ts';
import { redSquarePng } from '../../helpers/tiny-png.ts';

/**
 * Records what Claude Code sends, straight to the recording Anthropic mock and through the
 * gateway's Anthropic door (an anthropic slot whose upstream is that mock), for three tasks: a
 * plain prompt, a tool loop that reads a PNG with its Read tool, and thinking on. Writes
 * test/fixtures/clients/claude-code/*.json and prints the comparison of each request. Run by hand
 * when the client's version changes: `node test/clients/capture/capture-claude-code.ts`, then
 * `npx biome check --write test/fixtures/clients`.
 */

interface Scenario {
  name: string;
  prompt: string;
  args?: string[];
  env?: Record<string, string>;
  files?: Record<string, string | Uint8Array>;
  /** The mock's answers, given the working directory. */
  replies(workdir: string): ScriptedReply[];
}

const SCENARIOS: Scenario[] = [
  { name: 'plain', prompt: 'Say PONG.', replies: () => [{ text: 'PONG' }] },
  {
    name: 'read-png',
    prompt: 'What colour is the picture in pixel.png?',
    files: { 'pixel.png': redSquarePng(16) },
    replies: (workdir) => [
      {
        toolCalls: [
          { id: 'toolu_read_png', name: 'Read', arguments: { file_path: join(workdir, 'pixel.png') } },
        ],
      },
      { text: 'It is a red square.' },
    ],
  },
  {
    // Claude Code asks for adaptive thinking on models that have it (the default model); a budget
    // on the others, MAX_THINKING_TOKENS setting it.
    name: 'thinking',
    prompt: 'Read notes.txt and tell me its first word.',
    args: ['--model', 'claude-sonnet-4-5'],
    env: { MAX_THINKING_TOKENS: '31999' },
    files: { 'notes.txt': 'Lighthouse keepers keep lights.\n' },
    replies: (workdir) => [
      {
        thinking: [{ text: 'I should read the file first.', signature: 'c2lnbmF0dXJlLW9uZQ==' }],
        toolCalls: [
          { id: 'toolu_read_notes', name: 'Read', arguments: { file_path: join(workdir, 'notes.txt') } },
        ],
        usage: { inputTokens: 12, cacheWrite5mTokens: 9000, cacheReadTokens: 0, outputTokens: 40 },
      },
      {
        thinking: [{ text: 'The first word is Lighthouse.', signature: 'c2lnbmF0dXJlLXR3bw==' }],
        text: 'Lighthouse.',
        usage: { inputTokens: 30, cacheReadTokens: 9000, cacheWrite5mTokens: 200, outputTokens: 20 },
      },
    ],
  },
];

interface Capture {
  exitCode: number | null;
  result: Record<string, unknown> | undefined;
  requests: ClientRequestFixture[];
}

async function capture(scenario: Scenario, viaGateway: boolean): Promise<Capture> {
  const mock = await startMockAnthropic();
  const gateway = viaGateway
    ? await createGateway({
        env: {
          PROVIDER_A_KIND: 'anthropic',
          PROVIDER_A_BASE_URL: mock.origin,
          PROVIDER_A_API_KEY: 'sk-ant-upstream',
        },
      })
    : undefined;
  const workdir = makeTempDir('claude-work');
  try {
    let baseUrl = mock.origin;
    if (gateway !== undefined) {
      await gateway.gateway.listen({ host: '127.0.0.1', port: 0 });
      baseUrl = `http://127.0.0.1:${(gateway.gateway.server.address() as AddressInfo).port}`;
    }
    for (const reply of scenario.replies(workdir.path)) mock.replyNext(reply);
    const apiKey = viaGateway ? `${APP}:${SECRET}` : 'sk-ant-client-key';
    const run = await runClaude({
      baseUrl,
      apiKey,
      prompt: scenario.prompt,
      workdir: workdir.path,
      args: scenario.args ?? [],
      env: scenario.env ?? {},
      ...(scenario.files === undefined ? {} : { files: scenario.files }),
    });
    const scrubber = {
      replacements: [
        [workdir.path, '<workdir>'],
        [run.home, '<home>'],
        [apiKey, '<client-key>'],
        ['sk-ant-upstream', '<upstream-key>'],
      ] as [string, string][],
      patterns: [UUID_PATTERN, [/[0-9a-f]{64}/g, '<device-id>'] as [RegExp, string]],
    };
    return {
      exitCode: run.code,
      result: run.result,
      requests: mock.requests.map((request) => toClientRequestFixture(request, scrubber)),
    };
  } finally {
    workdir.remove();
    await gateway?.close();
    await mock.close();
  }
}

const version = clientPackageVersion('@anthropic-ai/claude-code');
for (const scenario of SCENARIOS) {
  for (const viaGateway of [false, true]) {
    const captured = await capture(scenario, viaGateway);
    const name = `claude-code/${scenario.name}.${viaGateway ? 'upstream-via-gateway' : 'sent'}.json`;
    writeClientFixture(name, {
      client: `@anthropic-ai/claude-code ${version}`,
      what: viaGateway
        ? 'what reached the upstream (the recording mock) through the gateway, main before issue 28'
        : 'what Claude Code sent, straight to the recording mock',
      command: ['claude', '-p', scenario.prompt, '--output-format', 'json', ...(scenario.args ?? [])],
      env: scenario.env ?? {},
      exitCode: captured.exitCode,
      result: captured.result,
      requests: captured.requests,
    });
    console.log(`## ${name}: exit ${captured.exitCode}, ${captured.requests.length} request(s)`);
    for (const request of captured.requests) {
      const body = (typeof request.body === 'object' ? request.body : {}) as Record<string, any>;
      console.log(JSON.stringify(summarizeAnthropicRequest(request.headers, body)));
    }
  }
}
