import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listenForClients } from '../helpers/anthropic-door-client.ts';
import { skipUnlessInstalled } from '../helpers/client-package.ts';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { type MockAnthropicServer, startMockAnthropic } from '../helpers/mock-anthropic-server.ts';
import { runClaude } from '../helpers/run-claude.ts';

/**
 * The real Claude Code (test/clients, `claude -p`) through the gateway's Anthropic door, served by
 * an anthropic slot whose upstream is the recording Anthropic mock. Skipped, with the reason, when
 * the test package is not installed.
 */

const skip = skipUnlessInstalled('claude');

describe('Claude Code through the Anthropic door', { skip }, () => {
  let mock: MockAnthropicServer;
  before(async () => {
    mock = await startMockAnthropic();
  });
  const gw = shareGateway(() => ({
    env: {
      PROVIDER_A_KIND: 'anthropic',
      PROVIDER_A_BASE_URL: mock.origin,
      PROVIDER_A_API_KEY: 'sk-ant-upstream-key',
    },
  }));
  after(() => mock.close());
  let baseUrl: string;
  before(async () => {
    baseUrl = await listenForClients(gw);
  });

  it('answers a plain prompt with the upstream text, and the upstream got one Messages request', async () => {
    mock.replyNext({ text: 'PONG from the recording mock.' });
    const run = await runClaude({ baseUrl, apiKey: `${APP}:${SECRET}`, prompt: 'Say PONG.' });
    assert.equal(run.timedOut, false, run.stderr);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal(run.result?.['is_error'], false);
    assert.equal(run.result?.['result'], 'PONG from the recording mock.');
    const upstream = mock.requests.filter((request) => request.path.startsWith('/v1/messages'));
    assert.equal(upstream.length, 1);
    assert.equal(upstream[0]?.headers['x-api-key'], 'sk-ant-upstream-key');
  });
});
