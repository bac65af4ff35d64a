import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type CloudUnderTest, cloudDoorMatrix, PNG } from '../helpers/cloud-door-matrix.ts';
import { AUTH, shareGateway } from '../helpers/gateway-harness.ts';
import {
  type BedrockRecordedRequest,
  type MockBedrockServer,
  startMockBedrock,
} from '../helpers/mock-bedrock-server.ts';
import { TEST_AWS_CREDENTIALS } from '../helpers/sigv4-check.ts';

/**
 * Every door through a bedrock slot whose upstream is the recording Bedrock mock, which checks each
 * request's SigV4 signature against the known test credentials. The credentials reach the gateway
 * the way they reach any AWS program: the SDK's default chain reads them from the environment
 * (instance metadata is turned off, so nothing leaves the machine).
 */
process.env['AWS_ACCESS_KEY_ID'] = TEST_AWS_CREDENTIALS.accessKeyId;
process.env['AWS_SECRET_ACCESS_KEY'] = TEST_AWS_CREDENTIALS.secretAccessKey;
process.env['AWS_SESSION_TOKEN'] = TEST_AWS_CREDENTIALS.sessionToken;
process.env['AWS_EC2_METADATA_DISABLED'] = 'true';

const CLAUDE = 'us.anthropic.claude-haiku-4-5-20251001-v1:0';

/** What the cases check of a Converse or InvokeModel body. */
function seen(request: BedrockRecordedRequest | undefined) {
  assert.ok(request !== undefined, 'the mock received nothing');
  const body = request.body as any;
  const texts: string[] = [];
  let image = false;
  for (const message of body.messages ?? []) {
    const blocks = typeof message.content === 'string' ? [{ text: message.content }] : message.content;
    for (const block of blocks) {
      if (typeof block.text === 'string') texts.push(block.text);
      if (block.image?.source?.bytes === PNG || block.source?.data === PNG) image = true;
    }
  }
  const tools = (body.toolConfig?.tools ?? body.tools ?? []).map(
    (tool: any) => tool.toolSpec?.name ?? tool.name,
  );
  return { texts, tools, image, path: request.path };
}

describe('every door through a bedrock slot', () => {
  let mock: MockBedrockServer;
  before(async () => {
    mock = await startMockBedrock({ region: 'eu-west-1' });
  });
  const gw = shareGateway(() => ({
    env: {
      PROVIDER_A_KIND: 'bedrock',
      PROVIDER_A_BASE_URL: mock.origin,
      PROVIDER_A_REGION: 'eu-west-1',
      PROVIDER_A_CHAT_MODEL: CLAUDE,
      PROVIDER_A_EMBED_MODEL: 'amazon.titan-embed-text-v2:0',
    },
  }));
  after(async () => {
    await mock.close();
  });

  const cloud: CloudUnderTest = {
    kind: 'bedrock',
    gw: () => gw,
    model: `provider-a/${CLAUDE}`,
    embedModel: 'provider-a/amazon.titan-embed-text-v2:0',
    replyNext: (reply) => mock.replyNext(reply),
    lastUpstream: () => seen(mock.requests.at(-1)),
  };
  cloudDoorMatrix(cloud);

  it('sends the Anthropic door to InvokeModel (the same-vendor lane) and every other door to Converse', () => {
    const operations = new Set(mock.requests.map((request) => request.operation));
    assert.deepEqual([...operations].sort(), [
      'converse',
      'converse-stream',
      'invoke',
      'invoke-with-response-stream',
    ]);
    assert.equal(mock.refusals.length, 0, mock.refusals.join(', '));
  });

  it('relays a Messages body to InvokeModel with bedrock-2023-05-31 and the betas Bedrock takes, naming the others', async () => {
    const reply = await gw.post(
      '/v1/messages',
      { model: `provider-a/${CLAUDE}`, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] },
      {
        headers: {
          ...AUTH,
          'anthropic-version': '2023-06-01',
          'anthropic-beta': 'claude-code-20250219,context-1m-2025-08-07',
        },
      },
    );
    assert.equal(reply.status, 200, reply.text);
    const request = mock.requests.at(-1) as BedrockRecordedRequest;
    assert.equal(request.operation, 'invoke');
    assert.equal(
      request.raw.toString(),
      '{"anthropic_version":"bedrock-2023-05-31","anthropic_beta":["context-1m-2025-08-07"],"max_tokens":64,"messages":[{"role":"user","content":"Hi"}]}',
    );
    assert.equal(reply.headers['x-gateway-ignored-fields'], 'anthropic-beta:claude-code-20250219');
  });
});
