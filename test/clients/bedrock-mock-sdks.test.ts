import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import AnthropicBedrock from '@anthropic-ai/bedrock-sdk';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { type MockBedrockServer, startMockBedrock } from '../helpers/mock-bedrock-server.ts';
import { TEST_AWS_CREDENTIALS } from '../helpers/sigv4-check.ts';

/**
 * The Bedrock mock is trusted only because AWS's own SDK and Anthropic's Bedrock SDK accept it:
 * their SigV4 signatures pass its check, and they parse its JSON and event-stream answers. A wrong
 * secret is refused, so the check is real.
 */
const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

describe('the Bedrock mock under the official SDKs', () => {
  let mock: MockBedrockServer;
  let client: BedrockRuntimeClient;
  before(async () => {
    mock = await startMockBedrock({ region: 'us-west-2' });
    // HTTP/1.1: the mock is a plain HTTP server (the SDK's default handler speaks HTTP/2).
    client = new BedrockRuntimeClient({
      region: 'us-west-2',
      endpoint: mock.origin,
      credentials: TEST_AWS_CREDENTIALS,
      requestHandler: new NodeHttpHandler(),
    });
  });
  after(async () => {
    client.destroy();
    await mock.close();
  });

  it('answers Converse with text, usage and cache counts that the AWS SDK parses', async () => {
    mock.replyNext({ text: 'Hi there.', usage: { inputTokens: 11, outputTokens: 3, cacheReadTokens: 100 } });
    const answer = await client.send(
      new ConverseCommand({ modelId: CLAUDE, messages: [{ role: 'user', content: [{ text: 'Hello' }] }] }),
    );
    assert.equal(answer.output?.message?.content?.[0]?.text, 'Hi there.');
    assert.equal(answer.stopReason, 'end_turn');
    assert.equal(answer.usage?.inputTokens, 11);
    assert.equal(answer.usage?.cacheReadInputTokens, 100);
    assert.equal(mock.requests.at(-1)?.modelId, CLAUDE);
    assert.equal(mock.requests.at(-1)?.auth, 'sigv4');
  });

  it('streams ConverseStream frames, tool input included, that the AWS SDK decodes', async () => {
    mock.replyNext({
      text: 'Checking.',
      toolCalls: [{ id: 'tool_1', name: 'get_weather', arguments: { city: 'Paris' } }],
    });
    const answer = await client.send(
      new ConverseStreamCommand({
        modelId: CLAUDE,
        messages: [{ role: 'user', content: [{ text: 'Weather?' }] }],
      }),
    );
    let text = '';
    let input = '';
    let stop: string | undefined;
    let usage: number | undefined;
    for await (const event of answer.stream ?? []) {
      text += event.contentBlockDelta?.delta?.text ?? '';
      input += event.contentBlockDelta?.delta?.toolUse?.input ?? '';
      stop = event.messageStop?.stopReason ?? stop;
      usage = event.metadata?.usage?.outputTokens ?? usage;
    }
    assert.equal(text, 'Checking.');
    assert.deepEqual(JSON.parse(input), { city: 'Paris' });
    assert.equal(stop, 'tool_use');
    assert.ok(usage !== undefined && usage > 0);
  });

  it('answers InvokeModel embeddings (Titan) that the AWS SDK reads', async () => {
    const answer = await client.send(
      new InvokeModelCommand({
        modelId: 'amazon.titan-embed-text-v2:0',
        contentType: 'application/json',
        body: JSON.stringify({ inputText: 'hello' }),
      }),
    );
    const body = JSON.parse(Buffer.from(answer.body).toString('utf8'));
    assert.equal(body.embedding.length, 4);
  });

  it('refuses a request signed with another secret', async () => {
    const wrong = new BedrockRuntimeClient({
      region: 'us-west-2',
      endpoint: mock.origin,
      credentials: { ...TEST_AWS_CREDENTIALS, secretAccessKey: 'not-the-secret' },
      requestHandler: new NodeHttpHandler(),
      maxAttempts: 1,
    });
    await assert.rejects(
      wrong.send(
        new ConverseCommand({ modelId: CLAUDE, messages: [{ role: 'user', content: [{ text: 'x' }] }] }),
      ),
      (error: Error) => error.name === 'InvalidSignatureException',
    );
    wrong.destroy();
    assert.equal(mock.refusals.at(-1), 'signature does not match');
  });

  it("serves Anthropic's Bedrock SDK: messages.create whole and streamed", async () => {
    const anthropic = new AnthropicBedrock({
      awsRegion: 'us-west-2',
      awsAccessKey: TEST_AWS_CREDENTIALS.accessKeyId,
      awsSecretKey: TEST_AWS_CREDENTIALS.secretAccessKey,
      awsSessionToken: TEST_AWS_CREDENTIALS.sessionToken,
      baseURL: mock.origin,
    });
    mock.replyNext({ thinking: [{ text: 'Hmm.', signature: 'sig-1' }], text: 'Done.' });
    const message = await anthropic.messages.create({
      model: CLAUDE,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.deepEqual(
      message.content.map((block) => block.type),
      ['thinking', 'text'],
    );
    assert.equal(mock.requests.at(-1)?.operation, 'invoke');
    // This SDK release writes its Messages version into the body; the model moved to the path.
    assert.equal(typeof mock.requests.at(-1)?.body['anthropic_version'], 'string');
    assert.equal('model' in (mock.requests.at(-1)?.body ?? {}), false);
    mock.replyNext({ text: 'Streamed answer.' });
    const stream = anthropic.messages.stream({
      model: CLAUDE,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const final = await stream.finalMessage();
    assert.equal(final.content[0]?.type === 'text' ? final.content[0].text : '', 'Streamed answer.');
    assert.equal(mock.requests.at(-1)?.operation, 'invoke-with-response-stream');
  });
});
