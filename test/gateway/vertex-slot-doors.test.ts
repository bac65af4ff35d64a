import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type CloudUnderTest, cloudDoorMatrix, PNG } from '../helpers/cloud-door-matrix.ts';
import { AUTH, shareGateway } from '../helpers/gateway-harness.ts';
import {
  type MockVertexServer,
  startMockVertex,
  type VertexRecordedRequest,
} from '../helpers/mock-vertex-server.ts';

/**
 * Every door through a vertex slot on the recording Vertex mock, with a Gemini model and a Claude
 * model. The slot's identity is a service-account key file (an RSA key made by the mock) whose
 * token_uri is the mock's token endpoint, which verifies the signed assertion: one token serves
 * every request of the file.
 */
function seen(request: VertexRecordedRequest | undefined) {
  assert.ok(request !== undefined, 'the mock received nothing');
  const body = request.body;
  const texts: string[] = [];
  let image = false;
  const tools: string[] = [];
  if (request.publisher === 'google') {
    for (const content of body.contents ?? [])
      for (const part of content.parts) {
        if (typeof part.text === 'string') texts.push(part.text);
        if (part.inlineData?.data === PNG) image = true;
      }
    for (const tool of body.tools ?? [])
      for (const declaration of tool.functionDeclarations ?? []) tools.push(declaration.name);
  } else {
    for (const message of body.messages ?? []) {
      const blocks =
        typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
      for (const block of blocks) {
        if (block.type === 'text') texts.push(block.text);
        if (block.source?.data === PNG) image = true;
      }
    }
    for (const tool of body.tools ?? []) tools.push(tool.name);
  }
  return { texts, tools, image, path: request.path };
}

describe('every door through a vertex slot', () => {
  let mock: MockVertexServer;
  let keyFile: string;
  before(async () => {
    mock = await startMockVertex();
    keyFile = mock.keyFile(mkdtempSync(join(tmpdir(), 'vertex-key-')));
  });
  const gw = shareGateway(() => ({
    env: {
      PROVIDER_B_KIND: 'vertex',
      PROVIDER_B_BASE_URL: mock.origin,
      PROVIDER_B_PROJECT: mock.project,
      PROVIDER_B_LOCATION: 'global',
      GOOGLE_APPLICATION_CREDENTIALS: keyFile,
      PROVIDER_B_EMBED_MODEL: 'text-embedding-005',
    },
  }));
  after(async () => {
    await mock.close();
  });

  const cloud = (model: string, embeds: boolean): CloudUnderTest => ({
    kind: `vertex ${model}`,
    gw: () => gw,
    model: `provider-b/${model}`,
    ...(embeds ? { embedModel: 'provider-b/text-embedding-005' } : {}),
    replyNext: (reply) => mock.replyNext(reply),
    lastUpstream: () => seen(mock.requests.filter((request) => request.method !== 'predict').at(-1)),
  });
  cloudDoorMatrix(cloud('gemini-2.5-flash', true));
  cloudDoorMatrix(cloud('claude-sonnet-4-5@20250929', false));

  it('took one token for all of those requests, and every assertion and token held', () => {
    assert.equal(mock.tokenFetches, 1);
    assert.deepEqual(mock.refusals, []);
    assert.ok(mock.requests.length > 40);
  });

  it('sends Claude on the Anthropic door by rawPredict with the client body and vertex-2023-10-16', async () => {
    const reply = await gw.post(
      '/v1/messages',
      {
        model: 'provider-b/claude-sonnet-4-5@20250929',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Hi' }],
      },
      {
        headers: {
          ...AUTH,
          'anthropic-version': '2023-06-01',
          'anthropic-beta': 'claude-code-20250219,context-1m-2025-08-07',
        },
      },
    );
    assert.equal(reply.status, 200, reply.text);
    const request = mock.requests.at(-1) as VertexRecordedRequest;
    assert.equal(request.method, 'rawPredict');
    assert.equal(
      request.raw.toString(),
      '{"anthropic_version":"vertex-2023-10-16","max_tokens":64,"messages":[{"role":"user","content":"Hi"}]}',
    );
    assert.equal(request.headers['anthropic-beta'], 'context-1m-2025-08-07');
    // The beta Vertex does not take is left out, and named to the client (CONTRACT 6.9).
    assert.equal(reply.headers['x-gateway-ignored-fields'], 'anthropic-beta:claude-code-20250219');
  });
});
