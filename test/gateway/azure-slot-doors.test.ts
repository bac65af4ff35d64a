import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type CloudUnderTest, cloudDoorMatrix, PNG } from '../helpers/cloud-door-matrix.ts';
import { shareGateway } from '../helpers/gateway-harness.ts';
import { AZURE_TEST, type MockAzureServer, startMockAzure } from '../helpers/mock-azure-server.ts';

/**
 * Every door through azure slots on the recording Azure mock: slot A on the v1 API with the
 * resource's key (`api-key`), slot B on the deployments API (`apiVersion`) with a Microsoft Entra
 * ID client whose secret comes from AZURE_CLIENT_SECRET and a `modelMap` naming the deployment.
 * Then the content filter: a 400 naming the filter on the OpenAI door, a 502 naming it on the
 * native API, never retried.
 */
function seen(mock: MockAzureServer) {
  const request = mock.openai.requests.at(-1);
  assert.ok(request !== undefined, 'the mock received nothing');
  const body = request.body as any;
  const texts: string[] = [];
  let image = false;
  for (const message of body.messages ?? []) {
    const parts =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : (message.content ?? []);
    for (const part of parts) {
      if (part.type === 'text') texts.push(part.text);
      if (part.type === 'image_url' && String(part.image_url.url).endsWith(PNG)) image = true;
    }
  }
  const tools = (body.tools ?? []).map((tool: any) => tool.function.name);
  return { texts, tools, image, path: mock.requests.at(-1)?.path ?? '' };
}

describe('every door through azure slots', () => {
  let mock: MockAzureServer;
  before(async () => {
    mock = await startMockAzure();
  });
  const gw = shareGateway(() => ({
    env: { AZURE_CLIENT_SECRET: AZURE_TEST.clientSecret },
    file: {
      providers: {
        'provider-a': { kind: 'azure', baseUrl: mock.origin, apiKey: AZURE_TEST.apiKey },
        'provider-b': {
          kind: 'azure',
          baseUrl: mock.origin,
          apiVersion: '2024-10-21',
          azure: { tenantId: AZURE_TEST.tenantId, clientId: AZURE_TEST.clientId, authorityHost: mock.origin },
          modelMap: { 'gpt-4o': 'prod-gpt4o-eu' },
        },
      },
    },
  }));
  after(async () => {
    await mock.close();
  });

  const cloud = (slot: string, kind: string): CloudUnderTest => ({
    kind,
    gw: () => gw,
    model: `${slot}/gpt-4o`,
    embedModel: `${slot}/text-embedding-3-small`,
    replyNext: (reply) => mock.openai.replyNext(reply),
    lastUpstream: () => seen(mock),
  });
  cloudDoorMatrix(cloud('provider-a', 'azure v1 api-key'));
  cloudDoorMatrix(cloud('provider-b', 'azure deployments Entra'));

  it('called the v1 API with the key, the deployments API with one Entra token and the mapped name', () => {
    const v1 = mock.requests.filter((request) => request.path.startsWith('/openai/v1/'));
    const deployments = mock.requests.filter((request) => request.path.startsWith('/openai/deployments/'));
    assert.ok(v1.length >= 20 && deployments.length >= 20);
    assert.ok(
      v1.every((request) => request.headers['api-key'] === AZURE_TEST.apiKey && request.apiVersion === null),
    );
    assert.ok(deployments.every((request) => request.apiVersion === '2024-10-21'));
    assert.ok(deployments.every((request) => request.headers['authorization'] === 'Bearer entra-token-1'));
    assert.ok(deployments.some((request) => request.deployment === 'prod-gpt4o-eu'));
    assert.equal(mock.tokenFetches, 1);
    assert.deepEqual(mock.refusals, []);
  });

  const FILTERED = {
    status: 400,
    body: {
      error: {
        message:
          "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
        type: null,
        param: 'prompt',
        code: 'content_filter',
        status: 400,
        innererror: {
          code: 'ResponsibleAIPolicyViolation',
          content_filter_result: {
            hate: { filtered: true, severity: 'high' },
            violence: { filtered: false, severity: 'safe' },
          },
        },
      },
    },
  };

  it('answers a content filter refusal 400 naming the filter on the OpenAI door, without a retry', async () => {
    const before = mock.openai.requests.length;
    mock.openai.failNext(1, FILTERED);
    const reply = await gw.post('/v1/chat/completions', {
      model: 'provider-a/gpt-4o',
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.equal(reply.status, 400, reply.text);
    assert.match(reply.body.error.message, /content_filter \(hate\)/);
    assert.equal(mock.openai.requests.length, before + 1);
  });

  it('answers it 502 upstream_error naming the filter on the native API', async () => {
    mock.openai.failNext(1, FILTERED);
    const reply = await gw.post('/v1/chat', {
      provider: 'provider-a',
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.equal(reply.status, 502, reply.text);
    assert.equal(reply.body.error.code, 'upstream_error');
    assert.match(reply.body.error.message, /content_filter \(hate\)/);
  });
});
