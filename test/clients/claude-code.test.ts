import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { replaceTopLevelValue } from '../../src/gateway/domain/json-splice.ts';
import { OFF_THREAD_BYTES } from '../../src/platform/json-thread/json-thread.ts';
import type { UsageRecord } from '../../src/storage/ports.ts';
import { listenForClients } from '../helpers/anthropic-door-client.ts';
import { summarizeAnthropicRequest } from '../helpers/anthropic-request-summary.ts';
import { makeTempDir, skipUnlessInstalled } from '../helpers/client-package.ts';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import {
  type MockAnthropicServer,
  type RecordedRequest,
  type ScriptedReply,
  startMockAnthropic,
} from '../helpers/mock-anthropic-server.ts';
import { type RecordingProxy, startRecordingProxy } from '../helpers/recording-proxy.ts';
import { runClaude } from '../helpers/run-claude.ts';
import { redSquarePng } from '../helpers/tiny-png.ts';

/**
 * The real Claude Code (test/clients, `claude -p`) through the gateway's Anthropic door, served by
 * an anthropic slot whose upstream is the recording Anthropic mock: the same-vendor lane (CONTRACT
 * 5.2). A recording proxy in front of the gateway keeps what Claude Code sent; the upstream must
 * have received those bytes with only `model` changed (here the family rule keeps the name, so
 * the bytes are equal), with its `anthropic-version` and `anthropic-beta`, and the slot's key.
 * Skipped, with the reason, when the test package is not installed.
 */

const skip = skipUnlessInstalled('claude');
const UPSTREAM_KEY = 'sk-ant-upstream-key';

describe('Claude Code through the Anthropic door and an anthropic slot', { skip }, () => {
  let mock: MockAnthropicServer;
  let proxy: RecordingProxy;
  before(async () => {
    mock = await startMockAnthropic();
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'anthropic', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: UPSTREAM_KEY },
  }));
  before(async () => {
    proxy = await startRecordingProxy(await listenForClients(gw));
  });
  after(async () => {
    await proxy.close();
    await mock.close();
  });

  /** Runs Claude Code through the proxy; what it sent and what the upstream received, pair by pair. */
  async function turn(options: {
    prompt: string;
    replies: ScriptedReply[];
    args?: string[];
    env?: Record<string, string>;
    workdir?: string;
    home?: string;
    files?: Record<string, string | Uint8Array>;
  }) {
    const sentBefore = proxy.requests.length;
    const receivedBefore = mock.requests.length;
    await gw.app.recorder.flush();
    const rowsBefore = new Set(
      (await gw.app.storage.usage.readRecords({ limit: 10_000 })).map((row) => row.id),
    );
    for (const reply of options.replies) mock.replyNext(reply);
    const run = await runClaude({
      baseUrl: proxy.origin,
      apiKey: `${APP}:${SECRET}`,
      prompt: options.prompt,
      args: options.args ?? [],
      env: options.env ?? {},
      ...(options.workdir === undefined ? {} : { workdir: options.workdir }),
      ...(options.home === undefined ? {} : { home: options.home }),
      ...(options.files === undefined ? {} : { files: options.files }),
    });
    assert.equal(run.timedOut, false, run.stderr);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal(run.result?.['is_error'], false, run.stdout);
    const sent = proxy.requests
      .slice(sentBefore)
      .filter((request) => request.path.startsWith('/v1/messages'));
    const received = mock.requests.slice(receivedBefore);
    await gw.app.recorder.flush();
    const rows = (await gw.app.storage.usage.readRecords({ limit: 10_000 })).filter(
      (row) => !rowsBefore.has(row.id),
    );
    return { run, sent, received, rows };
  }

  /** The upstream got each request as Claude Code sent it, but `model`, with its version and betas and the slot's key. */
  function assertRelayed(
    sent: RecordedRequest[],
    received: RecordedRequest[],
    upstreamModel: (model: string) => string,
  ) {
    assert.equal(received.length, sent.length, 'one upstream request per request Claude Code sent');
    for (const [index, request] of sent.entries()) {
      const upstream = received[index] as RecordedRequest;
      const expected = replaceTopLevelValue(
        request.raw,
        'model',
        JSON.stringify(upstreamModel(request.body.model)),
      );
      assert.equal(
        upstream.raw.toString('utf8'),
        expected?.toString('utf8'),
        `request ${index}: the bytes Claude Code sent`,
      );
      assert.equal(upstream.headers['anthropic-version'], request.headers['anthropic-version']);
      assert.equal(upstream.headers['anthropic-beta'], request.headers['anthropic-beta']);
      assert.equal(upstream.headers['x-api-key'], UPSTREAM_KEY);
      assert.equal(upstream.headers.authorization, undefined);
      assert.ok(!JSON.stringify(upstream.headers).includes(SECRET), 'the client’s key never goes upstream');
    }
  }

  const sameModel = (model: string) => model;

  it('a plain prompt: the upstream receives Claude Code’s request with its cache_control markers and betas', async () => {
    const { run, sent, received, rows } = await turn({
      prompt: 'Say PONG.',
      replies: [{ text: 'PONG from the recording mock.' }],
    });
    assert.equal(run.result?.['result'], 'PONG from the recording mock.');
    assertRelayed(sent, received, sameModel);
    const summary = summarizeAnthropicRequest(received[0]?.headers ?? {}, received[0]?.body ?? {});
    assert.ok(summary.cacheControlMarkers > 0, 'cache_control markers reached the upstream');
    assert.ok(summary.anthropicBeta.length > 0, 'betas reached the upstream');
    assert.match(summary.system, /^blocks/);
    assert.deepEqual(
      rows.map((row) => [row.frontDoor, row.status, row.provider]),
      [['anthropic', 200, 'provider-a']],
    );
  });

  it('a prompt of hundreds of kilobytes (read on the JSON thread): the upstream receives it byte for byte', async () => {
    // Each argument may hold at most 128 KiB (Linux's MAX_ARG_STRLEN): the prompt and an appended
    // system prompt, with Claude Code's own system prompt and tools, make a body past
    // OFF_THREAD_BYTES, so the door reads it on the JSON thread and the lane splices its bytes.
    const line = (n: number) => `Line ${n}: notes on the module, “quoted”, café, 日本, a \\ and a "quote".\n`;
    const text = (from: number) => Array.from({ length: 1_500 }, (_, i) => line(from + i)).join('');
    const { run, sent, received, rows } = await turn({
      prompt: `Summarise these notes in one word.\n${text(0)}`,
      args: ['--append-system-prompt', text(10_000)],
      replies: [{ text: 'Notes.' }],
    });
    assert.equal(run.result?.['result'], 'Notes.');
    assert.ok(
      sent.some((request) => request.raw.length >= OFF_THREAD_BYTES),
      `a body past ${OFF_THREAD_BYTES} bytes was sent (${sent.map((request) => request.raw.length).join(', ')})`,
    );
    assertRelayed(sent, received, sameModel);
    assert.deepEqual(
      rows.map((row) => [row.frontDoor, row.status, row.provider]),
      [['anthropic', 200, 'provider-a']],
    );
  });

  it('reads a PNG with its Read tool: the tool_result image reaches the upstream as sent', async () => {
    const workdir = makeTempDir('claude-png');
    try {
      const { run, sent, received } = await turn({
        prompt: 'What colour is the picture in pixel.png?',
        workdir: workdir.path,
        files: { 'pixel.png': redSquarePng(16) },
        replies: [
          {
            toolCalls: [
              {
                id: 'toolu_read_png',
                name: 'Read',
                arguments: { file_path: join(workdir.path, 'pixel.png') },
              },
            ],
          },
          { text: 'It is a red square.' },
        ],
      });
      assert.equal(run.result?.['result'], 'It is a red square.');
      assertRelayed(sent, received, sameModel);
      assert.equal(received.length, 2);
      const second = summarizeAnthropicRequest(received[1]?.headers ?? {}, received[1]?.body ?? {});
      assert.ok(
        (second.blocks['image'] ?? 0) >= 1,
        `an image block in the tool result: ${JSON.stringify(second.blocks)}`,
      );
    } finally {
      workdir.remove();
    }
  });

  it('thinking, then a second turn: the history’s thinking blocks and signatures reach the upstream unchanged; the usage and cost are the ledger’s', async () => {
    const workdir = makeTempDir('claude-thinking');
    try {
      const { run, sent, received, rows } = await turn({
        prompt: 'Read notes.txt and tell me its first word.',
        args: ['--model', 'claude-sonnet-4-5'],
        env: { MAX_THINKING_TOKENS: '31999' },
        workdir: workdir.path,
        files: { 'notes.txt': 'Lighthouse keepers keep lights.\n' },
        replies: [
          {
            thinking: [{ text: 'I should read the file first.', signature: 'c2lnbmF0dXJlLW9uZQ==' }],
            toolCalls: [
              {
                id: 'toolu_read_notes',
                name: 'Read',
                arguments: { file_path: join(workdir.path, 'notes.txt') },
              },
            ],
            usage: { inputTokens: 12, cacheWrite5mTokens: 9000, cacheReadTokens: 0, outputTokens: 40 },
          },
          {
            thinking: [{ text: 'The first word is Lighthouse.', signature: 'c2lnbmF0dXJlLXR3bw==' }],
            text: 'Lighthouse.',
            usage: { inputTokens: 30, cacheReadTokens: 9000, cacheWrite5mTokens: 200, outputTokens: 20 },
          },
        ],
      });
      assert.equal(run.result?.['result'], 'Lighthouse.');
      assertRelayed(sent, received, sameModel);
      assert.equal(received.length, 2);
      const first = summarizeAnthropicRequest(received[0]?.headers ?? {}, received[0]?.body ?? {});
      assert.equal((first.thinking as { type?: string } | undefined)?.type, 'enabled');
      const second = summarizeAnthropicRequest(received[1]?.headers ?? {}, received[1]?.body ?? {});
      assert.deepEqual(second.signatures, ['c2lnbmF0dXJlLW9uZQ==']);

      // What Claude Code reports (the sum of both answers' usage) is what the ledger kept.
      const usage = run.result?.['usage'] as Record<string, number>;
      const sum = (pick: (row: UsageRecord) => number) => rows.reduce((total, row) => total + pick(row), 0);
      assert.equal(rows.length, 2);
      assert.equal(
        usage['cache_read_input_tokens'],
        sum((row) => row.cacheReadTokens),
      );
      assert.equal(
        usage['cache_creation_input_tokens'],
        sum((row) => row.cacheWrite5mTokens + row.cacheWrite1hTokens),
      );
      assert.equal(
        (usage['input_tokens'] ?? 0) +
          (usage['cache_read_input_tokens'] ?? 0) +
          (usage['cache_creation_input_tokens'] ?? 0),
        sum((row) => row.tokensIn),
      );
      assert.equal(
        usage['output_tokens'],
        sum((row) => row.tokensOut),
      );
      // And so is its cost: Claude Code prices the same counts as the ledger did (cache reads and
      // writes each at its own rate), where the translated lane's figure was half again higher.
      const claudeCost = Number(run.result?.['total_cost_usd']);
      const ledgerCost = sum((row) => row.costUsd);
      assert.ok(Math.abs(claudeCost - ledgerCost) < 1e-9, `Claude Code ${claudeCost}, ledger ${ledgerCost}`);
    } finally {
      workdir.remove();
    }
  });

  it('a second run continues the conversation: the first turn’s thinking block and signature go back unchanged', async () => {
    const workdir = makeTempDir('claude-continue');
    const home = makeTempDir('claude-continue-home');
    const thinking = { args: ['--model', 'claude-sonnet-4-5'], env: { MAX_THINKING_TOKENS: '31999' } };
    try {
      const first = await turn({
        ...thinking,
        prompt: 'Pick a colour.',
        workdir: workdir.path,
        home: home.path,
        replies: [{ thinking: [{ text: 'Red is bold.', signature: 'c2lnLXR1cm4tb25l' }], text: 'Red.' }],
      });
      assert.equal(first.run.result?.['result'], 'Red.');
      const second = await turn({
        ...thinking,
        args: [...thinking.args, '--continue'],
        prompt: 'Why that one?',
        workdir: workdir.path,
        home: home.path,
        replies: [{ text: 'Because it is bold.' }],
      });
      assert.equal(second.run.result?.['result'], 'Because it is bold.');
      assertRelayed(second.sent, second.received, sameModel);
      const history = summarizeAnthropicRequest(
        second.received[0]?.headers ?? {},
        second.received[0]?.body ?? {},
      );
      assert.match(history.roles, /user,assistant,user$/);
      assert.deepEqual(history.signatures, ['c2lnLXR1cm4tb25l']);
    } finally {
      workdir.remove();
      home.remove();
    }
  });
});
