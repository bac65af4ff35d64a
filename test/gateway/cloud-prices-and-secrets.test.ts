import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { calcPrice } from '@pydantic/genai-prices';
import { shareGateway } from '../helpers/gateway-harness.ts';
import { AZURE_TEST, type MockAzureServer, startMockAzure } from '../helpers/mock-azure-server.ts';
import { type MockBedrockServer, startMockBedrock } from '../helpers/mock-bedrock-server.ts';
import { type MockVertexServer, startMockVertex } from '../helpers/mock-vertex-server.ts';
import { TEST_AWS_CREDENTIALS } from '../helpers/sigv4-check.ts';

/**
 * The cloud kinds' money and secrets (CONTRACT 6.4, 5.3): a request's cost on each kind equals
 * what the price data (@pydantic/genai-prices) gives for that provider (`aws`, `google`, `azure`)
 * and model, cache reads and writes priced at their own rates; no credential, signature or token
 * appears in a log line, a ledger row, /metrics or an error body; a slot whose credential source
 * fails answers 502 naming it and the reason, while the other slots keep serving.
 */
process.env['AWS_ACCESS_KEY_ID'] = TEST_AWS_CREDENTIALS.accessKeyId;
process.env['AWS_SECRET_ACCESS_KEY'] = TEST_AWS_CREDENTIALS.secretAccessKey;
process.env['AWS_SESSION_TOKEN'] = TEST_AWS_CREDENTIALS.sessionToken;
process.env['AWS_EC2_METADATA_DISABLED'] = 'true';

const BEDROCK_MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

describe('cloud kinds: prices, secrets and failing credentials', () => {
  let bedrock: MockBedrockServer;
  let vertex: MockVertexServer;
  let azure: MockAzureServer;
  let keyFile: string;
  const logs = new PassThrough();
  let logText = '';
  logs.on('data', (chunk: Buffer) => {
    logText += chunk.toString('utf8');
  });
  before(async () => {
    bedrock = await startMockBedrock({ region: 'us-east-1' });
    vertex = await startMockVertex();
    azure = await startMockAzure();
    keyFile = vertex.keyFile(mkdtempSync(join(tmpdir(), 'vertex-key-')));
  });
  const gw = shareGateway(() => ({
    logs,
    env: { LOG_LEVEL: 'debug', AZURE_CLIENT_SECRET: AZURE_TEST.clientSecret },
    file: {
      providers: {
        'provider-a': {
          kind: 'bedrock',
          baseUrl: bedrock.origin,
          region: 'us-east-1',
          chatModel: BEDROCK_MODEL,
        },
        'provider-b': {
          kind: 'vertex',
          baseUrl: vertex.origin,
          project: vertex.project,
          location: 'global',
          credentialsFile: keyFile,
          chatModel: 'gemini-2.5-flash',
        },
        'provider-c': {
          kind: 'azure',
          baseUrl: azure.origin,
          azure: {
            tenantId: AZURE_TEST.tenantId,
            clientId: AZURE_TEST.clientId,
            authorityHost: azure.origin,
          },
          chatModel: 'gpt-4o',
        },
      },
    },
  }));
  after(async () => {
    await Promise.all([bedrock.close(), vertex.close(), azure.close()]);
  });

  async function lastRow(provider: string) {
    await gw.app.recorder.flush();
    const rows = (await gw.app.storage.usage.readRecords({ limit: 1000 })).filter(
      (row) => row.provider === provider,
    );
    const row = rows.at(-1);
    assert.ok(row !== undefined);
    return row;
  }

  const CASES = [
    { slot: 'provider-a', vendor: 'aws', model: BEDROCK_MODEL, reply: () => bedrock, whole: false },
    { slot: 'provider-b', vendor: 'google', model: 'gemini-2.5-flash', reply: () => vertex, whole: true },
    { slot: 'provider-c', vendor: 'azure', model: 'gpt-4o', reply: () => azure.openai, whole: true },
  ] as const;

  for (const { slot, vendor, model, reply, whole } of CASES) {
    it(`prices a ${vendor} request as the price data does, cache reads${whole ? '' : ' and writes'} at their rates`, async () => {
      // Anthropic's wire (Bedrock) reports input without the cache; OpenAI's and Gemini's with it.
      const usage = whole
        ? { inputTokens: 3500, cacheReadTokens: 2000, outputTokens: 300 }
        : { inputTokens: 1000, cacheReadTokens: 2000, cacheWrite5mTokens: 500, outputTokens: 300 };
      reply().replyNext({ text: 'Priced.', usage });
      const answer = await gw.post('/v1/chat', {
        provider: slot,
        model,
        messages: [{ role: 'user', content: 'Hi' }],
      });
      assert.equal(answer.status, 200, answer.text);
      const row = await lastRow(slot);
      assert.equal(row.tokensIn, 3500);
      assert.equal(row.cacheReadTokens, 2000);
      assert.ok(row.model !== null);
      const expected = calcPrice(
        {
          input_tokens: 3500,
          cache_read_tokens: 2000,
          ...(whole ? {} : { cache_write_tokens: 500 }),
          output_tokens: 300,
        },
        // The model the upstream says answered is the one priced (Azure's mock answers gpt-4o-mini).
        row.model,
        { providerId: vendor },
      )?.total_price;
      assert.ok(expected !== undefined);
      assert.ok(expected > 0);
      assert.ok(Math.abs(row.costUsd - expected) < 1e-9, `${row.costUsd} vs ${expected}`);
    });
  }

  it('keeps every credential, signature and token out of logs, ledger rows, /metrics and error bodies', async () => {
    azure.openai.failNext(1, {
      status: 401,
      body: { error: { code: '401', message: `bad key ${AZURE_TEST.clientSecret}` } },
    });
    const failed = await gw.post('/v1/chat', {
      provider: 'provider-c',
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'x' }],
    });
    await gw.app.recorder.flush();
    const rows = JSON.stringify(await gw.app.storage.usage.readRecords({ limit: 1000 }));
    const metrics = (await gw.get('/metrics')).text;
    const secrets = [
      TEST_AWS_CREDENTIALS.secretAccessKey,
      TEST_AWS_CREDENTIALS.sessionToken,
      AZURE_TEST.clientSecret,
      'entra-token-',
      'ya29.mock',
      'Signature=',
      JSON.parse(readFileSync(keyFile, 'utf8')).private_key.split('\n')[1],
    ];
    for (const secret of secrets) {
      for (const [where, text] of [
        ['logs', logText],
        ['ledger', rows],
        ['metrics', metrics],
        ['error body', failed.text],
      ] as const)
        assert.ok(!text.includes(secret), `${where} holds ${secret.slice(0, 12)}…`);
    }
  });
});

describe('a cloud slot whose credential source fails', () => {
  let bedrock: MockBedrockServer;
  before(async () => {
    bedrock = await startMockBedrock({ region: 'us-east-1' });
  });
  const gw = shareGateway(() => ({
    file: {
      providers: {
        'provider-a': { kind: 'bedrock', baseUrl: bedrock.origin, region: 'us-east-1' },
        'provider-b': {
          kind: 'vertex',
          project: 'p',
          location: 'global',
          baseUrl: 'http://127.0.0.1:9',
          credentialsFile: join(tmpdir(), 'no-such-dir-for-keys', 'missing.json'),
          deployments: [
            {
              name: 'vertex-eu',
              baseUrl: 'http://127.0.0.1:9',
              credentialsFile: join(tmpdir(), 'no-such-dir-for-keys', 'missing.json'),
            },
          ],
        },
      },
    },
  }));
  after(async () => {
    await bedrock.close();
  });

  it('answers 502 upstream_error naming the slot, the deployment and the reason, and the other slot serves', async () => {
    const failed = await gw.post('/v1/chat', {
      provider: 'provider-b',
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(failed.status, 502, failed.text);
    assert.equal(failed.body.error.code, 'upstream_error');
    assert.match(
      failed.body.error.message,
      /^provider-b \(deployment vertex-eu\) has no credentials: the service-account file: .*ENOENT/,
    );
    const served = await gw.post('/v1/chat', {
      provider: 'provider-a',
      model: BEDROCK_MODEL,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(served.status, 200, served.text);
  });
});
