import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postMessages } from '../helpers/anthropic-door-client.ts';
import { shareGateway } from '../helpers/gateway-harness.ts';
import { type MockBedrockServer, startMockBedrock } from '../helpers/mock-bedrock-server.ts';
import { TEST_AWS_CREDENTIALS } from '../helpers/sigv4-check.ts';

/**
 * The response cache on a cloud's same-vendor lane (CONTRACT 5.5, 6.9): a hit answers as the miss
 * did, the betas Bedrock left out named again in `x-gateway-ignored-fields`, whole and streamed,
 * with no second upstream call.
 */
process.env['AWS_ACCESS_KEY_ID'] = TEST_AWS_CREDENTIALS.accessKeyId;
process.env['AWS_SECRET_ACCESS_KEY'] = TEST_AWS_CREDENTIALS.secretAccessKey;
process.env['AWS_SESSION_TOKEN'] = TEST_AWS_CREDENTIALS.sessionToken;
process.env['AWS_EC2_METADATA_DISABLED'] = 'true';

const MODEL = 'provider-a/us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const BETAS = 'claude-code-20250219,interleaved-thinking-2025-05-14';

describe('the response cache on the bedrock Messages relay', () => {
  let mock: MockBedrockServer;
  before(async () => {
    mock = await startMockBedrock({ region: 'us-east-1' });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'bedrock', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_REGION: 'us-east-1' },
    file: { responseCache: { enabled: true } },
  }));
  after(() => mock.close());

  for (const stream of [false, true])
    it(`a ${stream ? 'streamed' : 'whole'} hit names the betas left out, as the miss did`, async () => {
      const body = JSON.stringify({
        model: MODEL,
        max_tokens: 64,
        stream,
        messages: [{ role: 'user', content: `Hi (${stream ? 'streamed' : 'whole'})` }],
      });
      const calls = mock.requests.length;
      const miss = await postMessages(gw, body, BETAS);
      assert.equal(miss.statusCode, 200, miss.body);
      assert.equal(miss.headers['x-gateway-cache'], 'miss');
      assert.equal(miss.headers['x-gateway-ignored-fields'], 'anthropic-beta:claude-code-20250219');
      const hit = await postMessages(gw, body, BETAS);
      assert.equal(hit.statusCode, 200, hit.body);
      assert.equal(hit.headers['x-gateway-cache'], 'hit');
      assert.equal(hit.headers['x-gateway-ignored-fields'], 'anthropic-beta:claude-code-20250219');
      assert.equal(mock.requests.length, calls + 1, 'the hit made no upstream call');
    });
});
