import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { listenForClients } from '../helpers/anthropic-door-client.ts';
import { skipUnlessInstalled } from '../helpers/client-package.ts';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import {
  COMMAND,
  functionResponseOf,
  LOOP_ANSWER,
  LOOP_PROMPT,
  LOOP_REPLIES,
  NOTES,
} from '../helpers/gemini-cli-loop.ts';
import { startMockAnthropic } from '../helpers/mock-anthropic-server.ts';
import { MockGeminiServer, type ScriptedReply } from '../helpers/mock-gemini-server.ts';
import { startMockOpenAI } from '../helpers/mock-openai-server.ts';
import { type RecordingProxy, startRecordingProxy } from '../helpers/recording-proxy.ts';
import { runGemini } from '../helpers/run-gemini.ts';

/**
 * The real Gemini CLI through the gateway's Gemini door (CONTRACT 6.3), `GOOGLE_GEMINI_BASE_URL`
 * the gateway's origin and `GEMINI_API_KEY` the app's key, on a slot of each kind, each vendor's
 * strict recording mock behind it: a tool loop (read a file, run a shell command, answer). A
 * recording proxy between the CLI and the gateway keeps what the CLI sent, to compare with what
 * the upstream received: on the gemini slot, the same bytes (the model in the path aside).
 */

const skip = skipUnlessInstalled('gemini');
const KEY = `${APP}:${SECRET}`;

interface Upstream {
  url: string;
  close(): Promise<unknown>;
  reset(): void;
  script(reply: Parameters<MockGeminiServer['replyNext']>[0]): void;
  bodies(): any[];
}

/** The loop with Anthropic's signed thinking before the first call. */
const THINKING_LOOP: ScriptedReply[] = [
  { ...LOOP_REPLIES[0], thinking: [{ text: 'The file first.', signature: 'sig-anthropic-1' }] },
  ...LOOP_REPLIES.slice(1),
];

const KINDS = [
  {
    kind: 'gemini',
    model: 'gemini-3-pro-preview',
    start: async (): Promise<Upstream & { mock: MockGeminiServer }> => {
      const mock = await MockGeminiServer.start({ apiKey: 'upstream-key', streamEventDelayMs: 0 });
      return {
        mock,
        url: mock.origin,
        close: () => mock.close(),
        reset: () => mock.reset(),
        script: (reply) => mock.replyNext(reply),
        bodies: () => mock.requests.map((request) => request.body),
      };
    },
  },
  {
    kind: 'openai',
    model: 'provider-a/gpt-5.5',
    start: async (): Promise<Upstream> => {
      const mock = await startMockOpenAI({ apiKey: 'upstream-key' });
      return {
        url: mock.baseUrl,
        close: () => mock.close(),
        reset: () => mock.reset(),
        script: (reply) => mock.replyNext(reply),
        bodies: () => mock.requests.map((request) => request.body),
      };
    },
  },
  {
    kind: 'anthropic',
    model: 'provider-a/claude-sonnet-4-5',
    // Anthropic's signed thinking before the first call: it travels to the CLI in the call's
    // thoughtSignature and must reach Anthropic again, signature intact, on the next turn.
    replies: THINKING_LOOP,
    start: async (): Promise<Upstream> => {
      const mock = await startMockAnthropic();
      return {
        url: mock.origin,
        close: () => mock.close(),
        reset: () => {
          mock.requests.length = 0;
        },
        script: (reply) => mock.replyNext(reply),
        bodies: () => mock.requests.map((request) => request.body),
      };
    },
  },
] as const;

for (const upstream of KINDS) {
  describe(`Gemini CLI through the gateway, on a slot of kind ${upstream.kind}`, { skip }, () => {
    let started: Awaited<ReturnType<(typeof upstream)['start']>>;
    let proxy: RecordingProxy;
    before(async () => {
      started = await upstream.start();
    });
    const gw = shareGateway(() => ({
      env: {
        PROVIDER_A_KIND: upstream.kind,
        PROVIDER_A_BASE_URL: started.url,
        PROVIDER_A_API_KEY: 'upstream-key',
      },
    }));
    before(async () => {
      proxy = await startRecordingProxy(await listenForClients(gw));
    });
    after(async () => {
      await proxy.close();
      await started.close();
    });
    beforeEach(() => {
      started.reset();
      proxy.requests.length = 0;
    });

    it('completes a tool loop: reads the file, runs the command, answers', async () => {
      for (const reply of 'replies' in upstream ? upstream.replies : LOOP_REPLIES) started.script(reply);
      const run = await runGemini({
        baseUrl: proxy.origin,
        apiKey: KEY,
        prompt: LOOP_PROMPT,
        model: upstream.model,
        files: { 'notes.txt': NOTES },
      });
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      assert.equal(run.result?.['response'], LOOP_ANSWER);
      assert.equal(proxy.requests.length, 3);
      for (const sent of proxy.requests) {
        // Gemini CLI asks for its own current name of a Gemini model (gemini-3-pro-preview: 3.1).
        assert.match(sent.path, /^\/v1beta\/models\/[^:]+:streamGenerateContent\?alt=sse$/);
        assert.equal(sent.headers['x-goog-api-key'], KEY);
      }
      const sentBodies = proxy.requests.map((request) => request.body);
      assert.match(JSON.stringify(functionResponseOf(sentBodies[1], 'read_file')), /heliotrope/);
      assert.match(JSON.stringify(functionResponseOf(sentBodies[2], 'run_shell_command')), /tool-loop-ok/);
      assert.equal(started.bodies().length, 3);
      if (upstream.kind === 'anthropic') {
        const assistant = started.bodies()[1].messages[1];
        assert.deepEqual(assistant.content[0], {
          type: 'thinking',
          thinking: 'The file first.',
          signature: 'sig-anthropic-1',
        });
        assert.equal(assistant.content[1].type, 'tool_use');
        assert.ok(started.bodies()[1].thinking !== undefined, 'thinking stays on in the tool loop');
      }
      if ('mock' in started) {
        // The same-vendor lane: each body as the CLI wrote it, signatures included.
        const received = started.mock.requests;
        for (const [index, sent] of proxy.requests.entries()) {
          assert.equal(received[index]?.text, sent.raw.toString('utf8'));
          assert.equal(received[index]?.path, sent.path);
          assert.equal(received[index]?.headers['x-goog-api-key'], 'upstream-key');
        }
        assert.equal(started.mock.issuedSignatures.length, 2);
        assert.ok(received[2]?.text.includes(`"thoughtSignature":"${started.mock.issuedSignatures[1]}"`));
      }
    });
  });
}

describe('Gemini CLI through the gateway, on a simulated slot', { skip }, () => {
  const gw = shareGateway();
  let proxy: RecordingProxy;
  before(async () => {
    proxy = await startRecordingProxy(await listenForClients(gw));
  });
  after(() => proxy.close());
  beforeEach(() => {
    proxy.requests.length = 0;
  });

  it("answers a plain prompt with the simulator's text", async () => {
    const run = await runGemini({
      baseUrl: proxy.origin,
      apiKey: KEY,
      prompt: 'Say hi.',
      model: 'provider-a/chat',
    });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.ok((run.result?.['response'] ?? '').length > 0);
  });

  it("completes a tool loop the prompt's <simulated> directive asks for: runs the command, reads the file, answers", async () => {
    // The CLI sends no metadata: the directive rides in the prompt, with the arguments to call with.
    const directive = {
      toolCall: [
        { name: 'run_shell_command', arguments: { command: COMMAND } },
        { name: 'read_file', arguments: { file_path: 'notes.txt' } },
      ],
    };
    const run = await runGemini({
      baseUrl: proxy.origin,
      apiKey: KEY,
      prompt: `Run the command and read notes.txt. <simulated>${JSON.stringify(directive)}</simulated>`,
      model: 'provider-a/chat',
      files: { 'notes.txt': NOTES },
    });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal(proxy.requests.length, 2, proxy.requests.map((request) => request.path).join('\n'));
    const [asked, answered] = proxy.requests.map((request) => request.body);
    assert.ok(JSON.stringify(asked).includes('<simulated>'));
    // The second request carries what the tools did: the command's output and the file's text.
    assert.match(JSON.stringify(functionResponseOf(answered, 'run_shell_command')), /tool-loop-ok/);
    assert.match(JSON.stringify(functionResponseOf(answered, 'read_file')), /heliotrope/);
    // The simulated model quotes the last tool result in its answer: the file's content.
    assert.match(run.result?.['response'] ?? '', /heliotrope/);
  });
});
