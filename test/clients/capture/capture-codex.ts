import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { clientPackageVersion, makeTempDir } from '../../helpers/client-package.ts';
import {
  toClientRequestFixture,
  UUID_PATTERN,
  writeClientFixture,
} from '../../helpers/client-request-fixture.ts';
import { ADD_FILE_PATCH } from '../../helpers/codex-patches.ts';
import { APP, createGateway, SECRET } from '../../helpers/gateway-harness.ts';
import {
  type MockOpenAIServer,
  type ScriptedReply,
  type ScriptedResponseFailure,
  startMockOpenAI,
} from '../../helpers/mock-openai-server.ts';
import { type CodexRunOptions, runCodex } from '../../helpers/run-codex.ts';

/**
 * Records what Codex CLI sends to a Responses API (`codex exec`, straight to the recording OpenAI
 * mock's /v1/responses), for a plain prompt, a turn that answers with reasoning and a custom
 * `apply_patch` call (which Codex applies, then sends the call's output back), and a stream that
 * fails with rate_limit_exceeded; then what the gateway answers today. Writes
 * test/fixtures/clients/codex/*.json and prints what it saw. Run by hand when the client's version
 * changes: `node test/clients/capture/capture-codex.ts`, then `npx biome check --write
 * test/fixtures/clients`.
 */

interface Scenario {
  name: string;
  prompt: string;
  replies: (ScriptedReply | { failure: ScriptedResponseFailure })[];
  options?: Partial<CodexRunOptions>;
}

const SCENARIOS: Scenario[] = [
  { name: 'plain', prompt: 'Say PONG.', replies: [{ text: 'PONG' }] },
  {
    name: 'apply-patch',
    prompt: 'Create hello.txt saying hello.',
    replies: [
      {
        thinking: [{ text: 'A new file is needed.', signature: 'gAAAAB-encrypted-reasoning-one' }],
        toolCalls: [{ id: 'call_patch_1', name: 'apply_patch', kind: 'custom', arguments: ADD_FILE_PATCH }],
        usage: { inputTokens: 9000, cacheReadTokens: 8000, outputTokens: 50, reasoningTokens: 20 },
      },
      { text: 'Created hello.txt.' },
    ],
  },
  {
    name: 'rate-limited',
    prompt: 'Say PONG.',
    replies: [
      {
        failure: {
          code: 'rate_limit_exceeded',
          message: 'Rate limit reached for gpt-5.5 on tokens per min. Please try again in 1.5s.',
        },
      },
      { text: 'PONG after waiting' },
    ],
  },
];

function queue(mock: MockOpenAIServer, replies: Scenario['replies']): void {
  for (const reply of replies) {
    if ('failure' in reply) mock.failNextResponse(reply.failure);
    else mock.replyNext(reply);
  }
}

async function captureDirect(scenario: Scenario): Promise<void> {
  const mock = await startMockOpenAI();
  const workdir = makeTempDir('codex-work');
  try {
    queue(mock, scenario.replies);
    const run = await runCodex({
      baseUrl: mock.baseUrl,
      apiKey: 'sk-codex-client-key',
      prompt: scenario.prompt,
      workdir: workdir.path,
      ...scenario.options,
    });
    const scrubber = {
      replacements: [
        [workdir.path, '<workdir>'],
        [run.home, '<codex-home>'],
        ['sk-codex-client-key', '<client-key>'],
      ] as [string, string][],
      patterns: [UUID_PATTERN, [/(?<key>turn_started_at_unix_ms\\?":)\d+/g, '$<key>0'] as [RegExp, string]],
    };
    const created = join(workdir.path, 'hello.txt');
    const observed = {
      exitCode: run.code,
      durationMs: run.durationMs,
      lastMessage: run.lastMessage,
      events: run.events,
      fileCreated: existsSync(created) ? readFileSync(created, 'utf8') : null,
      pausesBetweenRequestsMs: mock.requests
        .slice(1)
        .map((request, i) => request.receivedAt - (mock.requests[i]?.receivedAt ?? 0)),
    };
    writeClientFixture(`codex/${scenario.name}.sent.json`, {
      client: `@openai/codex ${clientPackageVersion('@openai/codex')}`,
      what: 'what codex exec sent, straight to the recording OpenAI mock (POST /v1/responses)',
      command: ['codex', 'exec', '--strict-config', '--skip-git-repo-check', '--json', scenario.prompt],
      mockReplies: scenario.replies,
      observed,
      requests: mock.requests.map((request) => toClientRequestFixture(request, scrubber)),
    });
    console.log(`## ${scenario.name}: ${JSON.stringify({ ...observed, events: observed.events.length })}`);
  } finally {
    workdir.remove();
    await mock.close();
  }
}

/** Today the gateway has no /v1/responses: what it answers and what Codex does about it. */
async function captureThroughGateway(): Promise<void> {
  const mock = await startMockOpenAI({ apiKey: 'sk-upstream' });
  const gateway = await createGateway({
    env: { PROVIDER_A_KIND: 'openai', PROVIDER_A_BASE_URL: mock.baseUrl, PROVIDER_A_API_KEY: 'sk-upstream' },
  });
  try {
    await gateway.gateway.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(gateway.gateway.server.address() as AddressInfo).port}`;
    const direct = await fetch(`${origin}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${APP}:${SECRET}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-5.5', input: 'Say PONG.', stream: true }),
    });
    const run = await runCodex({ baseUrl: `${origin}/v1`, apiKey: `${APP}:${SECRET}`, prompt: 'Say PONG.' });
    const observed = {
      gatewayAnswer: { status: direct.status, body: await direct.json() },
      codexExitCode: run.code,
      codexDurationMs: run.durationMs,
      codexStderrTail: run.stderr.split('\n').filter((line) => line.includes('ERROR')),
      upstreamRequests: mock.requests.length,
    };
    writeClientFixture('codex/through-gateway-before.json', {
      client: `@openai/codex ${clientPackageVersion('@openai/codex')}`,
      what: 'the gateway (main, before issue 29) answering POST /v1/responses, and codex exec against it',
      observed,
    });
    console.log(`## through the gateway: ${JSON.stringify(observed)}`);
  } finally {
    await gateway.close();
    await mock.close();
  }
}

for (const scenario of SCENARIOS) await captureDirect(scenario);
await captureThroughGateway();
