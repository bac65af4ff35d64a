import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { listenForClients } from '../helpers/anthropic-door-client.ts';
import { makeTempDir, skipUnlessInstalled } from '../helpers/client-package.ts';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { DOT_ENV, DOT_ENV_MASKED, findSecret, SECRETS } from '../helpers/guarded-gateway.ts';
import { type MockAnthropicServer, startMockAnthropic } from '../helpers/mock-anthropic-server.ts';
import { runClaude } from '../helpers/run-claude.ts';

/**
 * Issue 42's closing run: the real Claude Code (test/clients, `claude -p`) reads a `.env` file
 * with its Read tool, through the Anthropic door and an anthropic slot (the same-vendor lane) on
 * the recording Anthropic mock, with the built-in guards masking secrets and personal data on
 * input and output. The upstream must never see a value of the file (the tool_result arrives
 * masked), the tool loop must still complete, and the model's answer quoting a key must reach
 * Claude Code masked (the streamed output's hold-back window on the lane's events).
 */

const skip = skipUnlessInstalled('claude');

describe('Claude Code reads a .env file through an anthropic slot with guards', { skip }, () => {
  let mock: MockAnthropicServer;
  const logs: string[] = [];
  before(async () => {
    mock = await startMockAnthropic();
  });
  const gw = shareGateway(() => ({
    env: {
      PROVIDER_A_KIND: 'anthropic',
      PROVIDER_A_BASE_URL: mock.origin,
      PROVIDER_A_API_KEY: 'sk-ant-upstream-key',
      LOG_LEVEL: 'info',
    },
    file: {
      guardrails: {
        guards: {
          'mask-secrets': { type: 'secrets', phase: ['input', 'output'], action: 'mask' },
          'mask-pii': { type: 'pii', phase: ['input', 'output'], action: 'mask' },
        },
        apps: { [APP]: ['mask-secrets', 'mask-pii'] },
      },
    },
    logs: new Writable({
      write(chunk, _encoding, done) {
        logs.push(String(chunk));
        done();
      },
    }),
  }));
  let origin: string;
  before(async () => {
    origin = await listenForClients(gw);
  });
  after(async () => {
    await mock.close();
  });

  it('the upstream receives the tool_result masked, the loop completes, the answer is masked', async (t) => {
    const workdir = makeTempDir('claude-dotenv');
    try {
      const envPath = join(workdir.path, '.env');
      mock.replyNext({
        toolCalls: [{ id: 'toolu_read_env', name: 'Read', arguments: { file_path: envPath } }],
      });
      mock.replyNext({ text: `The deploy key is ${SECRETS.aws} and the test card ${SECRETS.card}.` });
      const receivedBefore = mock.requests.length;
      const run = await runClaude({
        baseUrl: origin,
        apiKey: `${APP}:${SECRET}`,
        prompt: 'Read .env and tell me which AWS key and card we deploy with.',
        workdir: workdir.path,
        files: { '.env': `${DOT_ENV}\n` },
        timeoutMs: 90_000,
      });
      assert.equal(run.timedOut, false, run.stderr);
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      assert.equal(run.result?.['is_error'], false, run.stdout);

      const received = mock.requests.slice(receivedBefore);
      assert.equal(received.length, 2, 'the tool loop: the first turn, then the turn with the tool_result');
      for (const request of received)
        assert.equal(findSecret(request.raw.toString('utf8')), undefined, 'no value of .env went upstream');

      // The tool_result as the upstream received it: Claude Code's Read output (numbered lines)
      // of the masked file.
      const last = received[1]?.body as { messages: { role: string; content: unknown }[] };
      const toolResult = JSON.stringify(last.messages.at(-1)?.content);
      assert.match(toolResult, /tool_result/);
      assert.match(toolResult, /toolu_read_env/);
      for (const line of DOT_ENV_MASKED.split('\n')) assert.ok(toolResult.includes(line), `${line} upstream`);
      t.diagnostic(`the upstream's tool_result: ${toolResult.slice(0, 600)}`);

      // The answer quoting the key and the card reached Claude Code masked.
      const result = String(run.result?.['result']);
      assert.equal(findSecret(run.stdout), undefined, 'no value in what Claude Code printed');
      assert.match(result, /\[REDACTED:AWS_ACCESS_KEY\]/);
      assert.match(result, /\[REDACTED:CARD\]/);
      t.diagnostic(`Claude Code's answer: ${result}`);

      // What the gateway kept: the guards and actions, never a value.
      await gw.app.recorder.flush();
      const rows = await gw.app.storage.usage.readRecords({ limit: 100 });
      assert.equal(findSecret(JSON.stringify(rows)), undefined);
      assert.ok(
        rows.some((row) => row.guardrails?.includes('mask-secrets:input:mask')),
        JSON.stringify(rows.map((row) => row.guardrails)),
      );
      assert.ok(rows.some((row) => row.guardrails?.includes('mask-secrets:output:mask')));
      assert.equal(findSecret(logs.join('')), undefined);
    } finally {
      workdir.remove();
    }
  });
});
