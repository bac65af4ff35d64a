import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { clientPackageVersion, skipUnlessInstalled } from '../helpers/client-package.ts';
import {
  COMMAND,
  functionResponseOf,
  LOOP_ANSWER,
  LOOP_PROMPT,
  LOOP_REPLIES,
  NOTES,
} from '../helpers/gemini-cli-loop.ts';
import { MockGeminiServer } from '../helpers/mock-gemini-server.ts';
import { runGemini } from '../helpers/run-gemini.ts';

/**
 * The real Gemini CLI (test/clients, `gemini -p`) straight against the recording Gemini mock: the
 * mock is trusted by the gateway's tests only once the CLI talks to it as it talks to Google: a
 * plain answer, and a tool loop (read a file, run a shell command) on a gemini-3 model, whose
 * calls the mock signs and whose signatures it requires back.
 */

const skip = skipUnlessInstalled('gemini');

describe(`Gemini CLI ${clientPackageVersion('@google/gemini-cli') ?? ''} against the recording Gemini mock`, {
  skip,
}, () => {
  let mock: MockGeminiServer;
  before(async () => {
    mock = await MockGeminiServer.start({ apiKey: 'upstream-key', streamEventDelayMs: 0 });
  });
  after(() => mock.close());
  beforeEach(() => mock.reset());

  it('answers a plain prompt with the fixture, asking by SSE with its key in x-goog-api-key', async () => {
    const run = await runGemini({
      baseUrl: mock.origin,
      apiKey: 'upstream-key',
      prompt: 'Say hi.',
      model: 'gemini-2.5-flash',
    });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.ok((run.result?.['response'] ?? '').length > 0);
    const sent = mock.requests[0];
    assert.equal(sent?.path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    assert.equal(sent?.headers['x-goog-api-key'], 'upstream-key');
    assert.ok(Array.isArray(sent?.body.tools[0].functionDeclarations));
  });

  it('completes a tool loop on gemini-3, sending each signed call back with its signature', async () => {
    for (const reply of LOOP_REPLIES) mock.replyNext(reply);
    const run = await runGemini({
      baseUrl: mock.origin,
      apiKey: 'upstream-key',
      prompt: LOOP_PROMPT,
      model: 'gemini-3-pro-preview',
      files: { 'notes.txt': NOTES },
    });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal(run.result?.['response'], LOOP_ANSWER);
    const bodies = mock.requests.map((request) => request.body);
    assert.equal(bodies.length, 3);
    const read = functionResponseOf(bodies[1], 'read_file');
    assert.match(JSON.stringify(read), /heliotrope/);
    const shell = functionResponseOf(bodies[2], 'run_shell_command');
    assert.match(JSON.stringify(shell), new RegExp(COMMAND.slice('echo '.length)));
    // Both signatures the mock issued came back on their calls (the mock refuses the turn otherwise).
    const signatures = bodies[2].contents.flatMap((content: any) =>
      content.parts
        .filter((part: any) => part.functionCall !== undefined)
        .map((part: any) => part.thoughtSignature),
    );
    assert.deepEqual(signatures, mock.issuedSignatures);
  });
});
