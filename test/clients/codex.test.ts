import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { listenForClients } from '../helpers/anthropic-door-client.ts';
import { makeTempDir, skipUnlessInstalled } from '../helpers/client-package.ts';
import { ADD_FILE_PATCH } from '../helpers/codex-patches.ts';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { startMockAnthropic } from '../helpers/mock-anthropic-server.ts';
import { MockGeminiServer } from '../helpers/mock-gemini-server.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';
import { runCodex } from '../helpers/run-codex.ts';

/**
 * The real Codex CLI (test/clients, `codex exec`) on the Responses API: straight against the
 * recording OpenAI mock, which proves the helpers and the mock's /v1/responses; and through the
 * gateway's Responses door (issue 29) on an OpenAI, an Anthropic and a Gemini slot, each vendor's strict
 * mock: a plain prompt, and a custom apply_patch call that Codex applies and answers; on the
 * Anthropic slot, the signed thinking of the call's turn comes back to Anthropic on the next.
 */

const skip = skipUnlessInstalled('codex');

describe('Codex CLI against the recording Responses mock', { skip }, () => {
  let mock: MockOpenAIServer;
  before(async () => {
    mock = await startMockOpenAI();
  });
  after(() => mock.close());

  it('applies a custom apply_patch call and sends its output back with the call and the reasoning', async (t) => {
    const workdir = makeTempDir('codex-work');
    t.after(() => workdir.remove());
    mock.reset();
    mock.replyNext({
      thinking: [{ text: 'A new file is needed.', signature: 'encrypted-reasoning-one' }],
      toolCalls: [{ id: 'call_patch_1', name: 'apply_patch', kind: 'custom', arguments: ADD_FILE_PATCH }],
    });
    mock.replyNext({ text: 'Created hello.txt.' });
    const run = await runCodex({
      baseUrl: mock.baseUrl,
      apiKey: 'sk-codex-key',
      prompt: 'Create hello.txt saying hello.',
      workdir: workdir.path,
    });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal(run.lastMessage, 'Created hello.txt.');
    assert.equal(readFileSync(join(workdir.path, 'hello.txt'), 'utf8'), 'Hello from the patch.\n');
    assert.equal(mock.requests.length, 2);
    const [first, second] = mock.requests.map((request) => request.body as Record<string, any>);
    assert.equal(mock.requests[0]?.headers.authorization, 'Bearer sk-codex-key');
    assert.equal(first?.['store'], false);
    assert.deepEqual(first?.['include'], ['reasoning.encrypted_content']);
    assert.ok(first?.['tools'].some((tool: any) => tool.type === 'custom' && tool.name === 'apply_patch'));
    assert.ok(second !== undefined);
    const replayed = (second['input'] as any[]).slice(-3);
    assert.deepEqual(
      replayed.map((item) => item.type),
      ['reasoning', 'custom_tool_call', 'custom_tool_call_output'],
    );
    assert.equal(replayed[0].encrypted_content, 'encrypted-reasoning-one');
    assert.equal(replayed[2].call_id, 'call_patch_1');
    assert.match(replayed[2].output, /Success/);
  });
});

/** The slot kinds Codex is tried through: each vendor's strict mock, scripted the same way. */
const UPSTREAMS = [
  {
    kind: 'openai',
    model: 'provider-a/gpt-5.5',
    start: async () => {
      const mock = await startMockOpenAI({ apiKey: 'sk-upstream' });
      return {
        url: mock.baseUrl,
        mock,
        requests: () => mock.requests.map((r) => r.body as Record<string, any>),
      };
    },
  },
  {
    kind: 'anthropic',
    // A model Codex knows (it offers apply_patch only to models it has metadata for), served by
    // the only slot: the default route goes to the Anthropic slot and its default model.
    model: 'gpt-5.5',
    start: async () => {
      const mock = await startMockAnthropic();
      return {
        url: mock.origin,
        mock,
        requests: () => mock.requests.map((r) => r.body as Record<string, any>),
      };
    },
  },
  {
    kind: 'gemini',
    model: 'gpt-5.5',
    start: async () => {
      const mock = await MockGeminiServer.start({ apiKey: 'sk-upstream', streamEventDelayMs: 0 });
      return {
        url: mock.origin,
        mock,
        requests: () => mock.requests.map((r) => r.body as Record<string, any>),
      };
    },
  },
] as const;

for (const upstream of UPSTREAMS) {
  describe(`Codex CLI through the gateway, on a slot of kind ${upstream.kind}`, { skip }, () => {
    let started: Awaited<ReturnType<(typeof upstream)['start']>>;
    before(async () => {
      started = await upstream.start();
    });
    const gw = shareGateway(() => ({
      env: {
        PROVIDER_A_KIND: upstream.kind,
        PROVIDER_A_BASE_URL: started.url,
        PROVIDER_A_API_KEY: 'sk-upstream',
      },
    }));
    after(() => started.mock.close());

    /** Codex through the gateway to this slot, with no retries (a failure shows at once). */
    async function runThroughGateway(prompt: string, workdir?: string) {
      const origin = await listenForClients(gw);
      return runCodex({
        baseUrl: `${origin}/v1`,
        apiKey: `${APP}:${SECRET}`,
        model: upstream.model,
        prompt,
        ...(workdir === undefined ? {} : { workdir }),
        requestMaxRetries: 0,
        streamMaxRetries: 0,
      });
    }

    it('completes a plain prompt', async () => {
      started.mock.replyNext({ text: 'PONG' });
      const run = await runThroughGateway('Say PONG.');
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      assert.equal(run.lastMessage, 'PONG');
    });

    it('applies a custom apply_patch call and sends its output back through the gateway', async (t) => {
      const workdir = makeTempDir('codex-work');
      t.after(() => workdir.remove());
      const before = started.requests().length;
      // The upstream knows apply_patch as a function of one string argument, `input`.
      started.mock.replyNext({
        toolCalls: [{ id: 'call_patch_1', name: 'apply_patch', arguments: { input: ADD_FILE_PATCH } }],
      });
      started.mock.replyNext({ text: 'Created hello.txt.' });
      const run = await runThroughGateway('Create hello.txt saying hello.', workdir.path);
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      assert.equal(run.lastMessage, 'Created hello.txt.');
      assert.equal(readFileSync(join(workdir.path, 'hello.txt'), 'utf8'), 'Hello from the patch.\n');
      const sent = started.requests().slice(before);
      assert.equal(sent.length, 2);
      // Codex's hosted tools were left out; its custom tool went as a function of one string.
      const tools = JSON.stringify(sent[0]?.['tools']);
      assert.ok(!tools.includes('web_search'));
      assert.ok(tools.includes('apply_patch'));
      // The second turn carries the call and its output, as the upstream's own wire has them.
      const text = JSON.stringify(sent[1]);
      assert.ok(text.includes('call_patch_1'));
      assert.match(text, /Success/);
    });

    if (upstream.kind === 'anthropic') {
      it("keeps Anthropic's signed thinking across the apply_patch turn (reasoning.encrypted_content)", async (t) => {
        const workdir = makeTempDir('codex-work');
        t.after(() => workdir.remove());
        const before = started.requests().length;
        const signature = 'EqQBCkgIARABGAIiQGX+codex/signed==';
        started.mock.replyNext({
          thinking: [{ text: 'A new file is needed.', signature }],
          toolCalls: [{ id: 'toolu_patch_2', name: 'apply_patch', arguments: { input: ADD_FILE_PATCH } }],
        });
        started.mock.replyNext({ text: 'Created hello.txt.' });
        const run = await runThroughGateway('Create hello.txt saying hello.', workdir.path);
        assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
        assert.equal(run.lastMessage, 'Created hello.txt.');
        // Codex shows the reasoning item's summary as its reasoning.
        const reasoning = run.events.find((event) => event['item']?.type === 'reasoning');
        assert.equal(reasoning?.['item'].text, 'A new file is needed.');
        const sent = started.requests().slice(before);
        assert.equal(sent.length, 2);
        // The second turn, from a stateless client, reaches Anthropic with the signed block first.
        const assistant = ((sent[1]?.['messages'] ?? []) as any[]).find(
          (message) => message.role === 'assistant',
        );
        assert.deepEqual(assistant.content[0], {
          type: 'thinking',
          thinking: 'A new file is needed.',
          signature,
        });
        assert.equal(sent[1]?.['thinking']?.type, 'enabled');
      });
    }
  });
}
