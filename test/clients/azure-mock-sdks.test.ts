import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI, { AzureOpenAI } from 'openai';
import { AZURE_TEST, type MockAzureServer, startMockAzure } from '../helpers/mock-azure-server.ts';

/**
 * The Azure mock is trusted only because `openai`'s own `AzureOpenAI` client accepts it: with the
 * resource's api-key or an Entra token, over the deployments API, chat and embeddings, whole and
 * streamed; and `OpenAI` itself on the resource's v1 API as Azure documents it. A wrong key is
 * refused, so the check is real.
 */
const API_VERSION = '2024-10-21';
const DEPLOYMENT = 'gpt-4o-prod';

/** Client credentials posted to the mock tenant's token endpoint, as Entra ID takes them. */
async function entraToken(origin: string, secret: string = AZURE_TEST.clientSecret): Promise<string> {
  const response = await fetch(`${origin}/${AZURE_TEST.tenantId}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: AZURE_TEST.clientId,
      client_secret: secret,
      scope: 'https://cognitiveservices.azure.com/.default',
    }),
  });
  const body = (await response.json()) as { access_token?: string; error?: { code: string } };
  if (body.access_token === undefined) throw new Error(`Entra refused: ${body.error?.code}`);
  return body.access_token;
}

describe('the Azure mock under the official openai SDK', () => {
  let mock: MockAzureServer;
  before(async () => {
    mock = await startMockAzure();
  });
  after(async () => {
    await mock.close();
  });

  function withKey(apiKey: string = AZURE_TEST.apiKey): AzureOpenAI {
    return new AzureOpenAI({
      endpoint: mock.origin,
      apiKey,
      apiVersion: API_VERSION,
      deployment: DEPLOYMENT,
      maxRetries: 0,
    });
  }

  it('answers chat on the deployments API with the api-key header', async () => {
    mock.openai.replyNext({ text: 'Hello from Azure.' });
    const answer = await withKey().chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(answer.choices[0]?.message.content, 'Hello from Azure.');
    const seen = mock.requests.at(-1);
    assert.equal(seen?.path, `/openai/deployments/${DEPLOYMENT}/chat/completions?api-version=${API_VERSION}`);
    assert.equal(seen?.deployment, DEPLOYMENT);
    assert.equal(seen?.headers['api-key'], AZURE_TEST.apiKey);
    assert.equal(seen?.headers.authorization, undefined);
  });

  it('streams chat, a tool call included, that AzureOpenAI decodes', async () => {
    mock.openai.replyNext({
      text: 'Checking.',
      toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }],
    });
    const stream = await withKey().chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let args = '';
    let name = '';
    let usage: number | undefined;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      text += delta?.content ?? '';
      name += delta?.tool_calls?.[0]?.function?.name ?? '';
      args += delta?.tool_calls?.[0]?.function?.arguments ?? '';
      usage = chunk.usage?.total_tokens ?? usage;
    }
    assert.equal(text, 'Checking.');
    assert.equal(name, 'get_weather');
    assert.deepEqual(JSON.parse(args), { city: 'Paris' });
    assert.ok(usage !== undefined && usage > 0);
    assert.equal(
      (mock.openai.requests.at(-1)?.body as Record<string, unknown> | undefined)?.['stream'],
      true,
    );
  });

  it('answers embeddings on the deployments API, float and base64', async () => {
    const client = withKey();
    const floats = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['one', 'two'],
      encoding_format: 'float',
    });
    assert.equal(floats.data.length, 2);
    assert.ok(floats.data.every((item) => Array.isArray(item.embedding) && item.embedding.length > 0));
    assert.equal(
      mock.requests.at(-1)?.path,
      `/openai/deployments/${DEPLOYMENT}/embeddings?api-version=${API_VERSION}`,
    );
    // Without encoding_format the SDK asks for base64 and decodes it into numbers itself.
    const decoded = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'one' });
    assert.equal(
      (mock.openai.requests.at(-1)?.body as Record<string, unknown> | undefined)?.['encoding_format'],
      'base64',
    );
    assert.ok(decoded.data[0]?.embedding.every((value) => typeof value === 'number'));
  });

  it('serves an Entra token from azureADTokenProvider, chat and embeddings', async () => {
    const fetchesBefore = mock.tokenFetches;
    const client = new AzureOpenAI({
      endpoint: mock.origin,
      azureADTokenProvider: () => entraToken(mock.origin),
      apiVersion: API_VERSION,
      deployment: DEPLOYMENT,
      maxRetries: 0,
    });
    mock.openai.replyNext({ text: 'Token accepted.' });
    const answer = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(answer.choices[0]?.message.content, 'Token accepted.');
    assert.match(String(mock.requests.at(-1)?.headers.authorization), /^Bearer entra-token-\d+$/);
    assert.equal(mock.requests.at(-1)?.headers['api-key'], undefined);
    const vectors = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'x' });
    assert.equal(vectors.data.length, 1);
    assert.equal(mock.tokenFetches, fetchesBefore + 2);
  });

  it('serves the v1 API through the plain OpenAI client, the key sent as a bearer', async () => {
    const client = new OpenAI({
      baseURL: `${mock.origin}/openai/v1/`,
      apiKey: AZURE_TEST.apiKey,
      maxRetries: 0,
    });
    mock.openai.replyNext({ text: 'v1 answer.' });
    const stream = await client.chat.completions.create({
      model: DEPLOYMENT,
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    assert.equal(text, 'v1 answer.');
    assert.equal(mock.requests.at(-1)?.path, '/openai/v1/chat/completions');
    assert.equal(mock.requests.at(-1)?.deployment, DEPLOYMENT);
  });

  it('refuses a wrong api-key and a wrong Entra secret', async () => {
    const requestsBefore = mock.requests.length;
    await assert.rejects(
      withKey('not-the-key').chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'x' }],
      }),
      (error: Error & { status?: number }) => error.status === 401,
    );
    await assert.rejects(
      withKey('not-the-key').embeddings.create({ model: 'text-embedding-3-small', input: 'x' }),
      (error: Error & { status?: number }) => error.status === 401,
    );
    const v1 = new OpenAI({ baseURL: `${mock.origin}/openai/v1/`, apiKey: 'not-the-key', maxRetries: 0 });
    await assert.rejects(
      v1.chat.completions.create({ model: DEPLOYMENT, messages: [{ role: 'user', content: 'x' }] }),
      (error: Error & { status?: number }) => error.status === 401,
    );
    assert.equal(mock.requests.length, requestsBefore);
    const client = new AzureOpenAI({
      endpoint: mock.origin,
      azureADTokenProvider: () => entraToken(mock.origin, 'wrong-secret'),
      apiVersion: API_VERSION,
      deployment: DEPLOYMENT,
      maxRetries: 0,
    });
    await assert.rejects(
      client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }),
      /Entra refused: invalid_client/,
    );
    assert.equal(mock.refusals.at(-1), 'invalid_client');
  });
});
