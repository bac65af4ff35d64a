import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { GoogleGenAI } from '@google/genai';
import { GoogleAuth, OAuth2Client } from 'google-auth-library';
import { type MockVertexServer, startMockVertex } from '../helpers/mock-vertex-server.ts';

/**
 * The Vertex mock is trusted only because Google's and Anthropic's own SDKs accept it: their
 * service-account assertions pass its token endpoint's signature check, their calls carry the
 * token it issued, and they parse its JSON and SSE answers. A key the mock did not issue is
 * refused, so the check is real.
 */
const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const CLAUDE = 'claude-sonnet-4-5@20250929';

/**
 * google-auth-library (10.x) posts every service-account assertion to Google's own token URL and
 * ignores the key's token_uri, so its transport is pointed at the key's token_uri here.
 */
function authFor(keyFile: string) {
  const tokenUri = String(JSON.parse(readFileSync(keyFile, 'utf8')).token_uri);
  const fetchImplementation: typeof fetch = (input, init) =>
    fetch(String(input instanceof Request ? input.url : input) === GOOGLE_TOKEN_URL ? tokenUri : input, init);
  return { keyFile, scopes: [SCOPE], clientOptions: { transporterOptions: { fetchImplementation } } };
}

describe('the Vertex mock under the official SDKs', () => {
  let mock: MockVertexServer;
  let dir: string;
  let keyFile: string;
  before(async () => {
    mock = await startMockVertex();
    dir = mkdtempSync(join(tmpdir(), 'vertex-sdks-'));
    keyFile = mock.keyFile(dir);
  });
  after(async () => {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function genai(file = keyFile): GoogleGenAI {
    return new GoogleGenAI({
      vertexai: true,
      project: mock.project,
      location: 'europe-west4',
      httpOptions: { baseUrl: mock.origin },
      googleAuthOptions: authFor(file),
    });
  }

  it("answers @google/genai's generateContent with a token from a verified assertion", async () => {
    const fetchesBefore = mock.tokenFetches;
    mock.replyNext({ text: 'Bonjour.', usage: { inputTokens: 7, outputTokens: 2 } });
    const answer = await genai().models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hello' });
    assert.equal(answer.text, 'Bonjour.');
    assert.equal(answer.usageMetadata?.promptTokenCount, 7);
    assert.equal(mock.tokenFetches, fetchesBefore + 1);
    const seen = mock.requests.at(-1);
    assert.equal(seen?.publisher, 'google');
    assert.equal(seen?.model, 'gemini-2.5-flash');
    assert.equal(seen?.method, 'generateContent');
    assert.match(seen?.path ?? '', /^\/v1beta1\/projects\/test-project\/locations\/europe-west4\//);
    assert.equal(seen?.body.contents?.[0]?.parts?.[0]?.text, 'Hello');
  });

  it('streams generateContentStream (alt=sse), a function call included, that @google/genai decodes', async () => {
    mock.replyNext({
      text: 'Checking.',
      toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }],
    });
    const stream = await genai().models.generateContentStream({
      model: 'gemini-2.5-flash',
      contents: 'Weather?',
    });
    let text = '';
    const calls: { name?: string; args?: Record<string, unknown> }[] = [];
    for await (const chunk of stream) {
      text += chunk.text ?? '';
      calls.push(...(chunk.functionCalls ?? []));
    }
    assert.equal(text, 'Checking.');
    assert.deepEqual(
      calls.map((call) => [call.name, call.args]),
      [['get_weather', { city: 'Paris' }]],
    );
    assert.equal(mock.requests.at(-1)?.method, 'streamGenerateContent');
    assert.match(mock.requests.at(-1)?.path ?? '', /\?alt=sse$/);
  });

  it('refuses an assertion signed with a key it does not know', async () => {
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const key = JSON.parse(readFileSync(keyFile, 'utf8'));
    const wrongFile = join(dir, 'stranger.json');
    writeFileSync(
      wrongFile,
      JSON.stringify({ ...key, private_key: stranger.export({ type: 'pkcs8', format: 'pem' }) }),
    );
    const fetchesBefore = mock.tokenFetches;
    const requestsBefore = mock.requests.length;
    await assert.rejects(
      genai(wrongFile).models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' }),
      /invalid_grant/,
    );
    assert.equal(mock.tokenFetches, fetchesBefore);
    assert.equal(mock.requests.length, requestsBefore);
    assert.match(mock.refusals.at(-1) ?? '', /^assertion: .*signature/);
  });

  it('serves @anthropic-ai/vertex-sdk: messages.create whole and streamed over rawPredict', async () => {
    const anthropic = new AnthropicVertex({
      region: 'us-east5',
      projectId: mock.project,
      baseURL: `${mock.origin}/v1`,
      googleAuth: new GoogleAuth(authFor(keyFile)),
    });
    mock.replyNext({ text: 'Done.', usage: { inputTokens: 12, outputTokens: 2 } });
    const message = await anthropic.messages.create({
      model: CLAUDE,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(message.content[0]?.type === 'text' ? message.content[0].text : '', 'Done.');
    assert.equal(message.usage.input_tokens, 12);
    const whole = mock.requests.at(-1);
    assert.equal(whole?.publisher, 'anthropic');
    assert.equal(whole?.model, CLAUDE);
    assert.equal(whole?.method, 'rawPredict');
    // This SDK release writes its dated Messages version, not vertex-2023-10-16; the mock takes both.
    assert.match(String(whole?.body['anthropic_version']), /^\d{4}-\d{2}-\d{2}$/);
    assert.equal('model' in (whole?.body ?? {}), false);
    assert.match(String(whole?.headers.authorization), /^Bearer ya29\.mock-/);

    mock.replyNext({ text: 'Streamed answer.' });
    const stream = anthropic.messages.stream({
      model: CLAUDE,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const final = await stream.finalMessage();
    assert.equal(final.content[0]?.type === 'text' ? final.content[0].text : '', 'Streamed answer.');
    assert.equal(mock.requests.at(-1)?.method, 'streamRawPredict');
    assert.equal(mock.requests.at(-1)?.body['stream'], true);
  });

  it('refuses a call whose bearer token it never issued', async () => {
    const forged = new OAuth2Client();
    forged.setCredentials({ access_token: 'ya29.forged-token', expiry_date: Date.now() + 3_600_000 });
    const anthropic = new AnthropicVertex({
      region: 'us-east5',
      projectId: mock.project,
      baseURL: `${mock.origin}/v1`,
      authClient: forged,
      maxRetries: 0,
    });
    await assert.rejects(
      anthropic.messages.create({ model: CLAUDE, max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }),
      (error: Error & { status?: number }) => error.status === 401,
    );
    assert.equal(mock.refusals.at(-1), 'token');
  });
});
