import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { shareGateway } from '../helpers/gateway-harness.ts';
import { AZURE_TEST, type MockAzureServer, startMockAzure } from '../helpers/mock-azure-server.ts';
import { type MockBedrockServer, startMockBedrock } from '../helpers/mock-bedrock-server.ts';
import { type MockVertexServer, startMockVertex } from '../helpers/mock-vertex-server.ts';
import type { ScriptedReply } from '../helpers/scripted-reply.ts';
import { TEST_AWS_CREDENTIALS } from '../helpers/sigv4-check.ts';

/**
 * Structured output and thinking on the cloud kinds (CONTRACT 6.4), through the OpenAI door's
 * translated lane: a `json_schema` response format reaches each cloud in its own form (Claude on
 * Bedrock's Converse or Vertex's rawPredict: a forced tool; Gemini on Vertex: `responseMimeType`
 * with the schema; Azure: the response format as sent) and comes back as the JSON text; a
 * reasoning effort reaches each as its thinking setting (Converse's
 * `additionalModelRequestFields.thinking`, the Messages body's `thinking`, Gemini's
 * `thinkingConfig`, Azure's `reasoning_effort`), and the answer after the model's thinking is the
 * client's.
 */
process.env['AWS_ACCESS_KEY_ID'] = TEST_AWS_CREDENTIALS.accessKeyId;
process.env['AWS_SECRET_ACCESS_KEY'] = TEST_AWS_CREDENTIALS.secretAccessKey;
process.env['AWS_SESSION_TOKEN'] = TEST_AWS_CREDENTIALS.sessionToken;
process.env['AWS_EC2_METADATA_DISABLED'] = 'true';

const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};
const FORMAT = { type: 'json_schema', json_schema: { name: 'weather', schema: SCHEMA, strict: true } };

interface Cloud {
  name: string;
  model: string;
  /** The answer the cloud gives to a structured request (a forced tool call, or JSON text). */
  structured: ScriptedReply;
  replyNext(reply: ScriptedReply): void;
  /** The last request body the cloud received. */
  last(): any;
  /** What the cloud received of the schema. */
  sawSchema(body: any): void;
  /** What the cloud received of the reasoning effort. */
  sawThinking(body: any): void;
  /** The model id reasoning is asked of (Azure: a reasoning model). */
  thinkingModel?: string;
}

describe('structured output and thinking on the cloud kinds', () => {
  let bedrock: MockBedrockServer;
  let vertex: MockVertexServer;
  let azure: MockAzureServer;
  let keyFile: string;
  before(async () => {
    bedrock = await startMockBedrock({ region: 'us-east-1' });
    vertex = await startMockVertex();
    azure = await startMockAzure();
    keyFile = vertex.keyFile(mkdtempSync(join(tmpdir(), 'vertex-key-')));
  });
  const gw = shareGateway(() => ({
    file: {
      providers: {
        'provider-a': { kind: 'bedrock', baseUrl: bedrock.origin, region: 'us-east-1' },
        'provider-b': {
          kind: 'vertex',
          baseUrl: vertex.origin,
          project: vertex.project,
          location: 'global',
          credentialsFile: keyFile,
        },
        'provider-c': { kind: 'azure', baseUrl: azure.origin, apiKey: AZURE_TEST.apiKey },
      },
    },
  }));
  after(async () => {
    await Promise.all([bedrock.close(), vertex.close(), azure.close()]);
  });

  const forcedToolCall: ScriptedReply = { toolCalls: [{ name: 'weather', arguments: { city: 'Paris' } }] };
  const jsonText: ScriptedReply = { text: '{"city":"Paris"}' };
  const CLOUDS: Cloud[] = [
    {
      name: 'bedrock Claude (Converse)',
      model: 'provider-a/us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      structured: forcedToolCall,
      replyNext: (reply) => bedrock.replyNext(reply),
      last: () => bedrock.requests.at(-1)?.body,
      sawSchema: (body) => {
        assert.deepEqual(body.toolConfig.toolChoice, { tool: { name: 'weather' } });
        const spec = body.toolConfig.tools.find((tool: any) => tool.toolSpec?.name === 'weather');
        assert.deepEqual(spec.toolSpec.inputSchema.json, SCHEMA);
      },
      sawThinking: (body) => {
        assert.equal(body.additionalModelRequestFields?.thinking?.type, 'enabled', JSON.stringify(body));
        assert.ok(body.additionalModelRequestFields.thinking.budget_tokens >= 1024);
      },
    },
    {
      name: 'vertex Claude (rawPredict)',
      model: 'provider-b/claude-sonnet-4-5@20250929',
      structured: forcedToolCall,
      replyNext: (reply) => vertex.replyNext(reply),
      last: () => vertex.requests.at(-1)?.body,
      sawSchema: (body) => {
        assert.deepEqual(body.tool_choice, { type: 'tool', name: 'weather' });
        assert.deepEqual(body.tools.find((tool: any) => tool.name === 'weather').input_schema, SCHEMA);
      },
      sawThinking: (body) => {
        assert.equal(body.thinking?.type, 'enabled', JSON.stringify(body));
        assert.ok(body.thinking.budget_tokens >= 1024);
      },
    },
    {
      name: 'vertex Gemini (generateContent)',
      model: 'provider-b/gemini-2.5-flash',
      structured: jsonText,
      replyNext: (reply) => vertex.replyNext(reply),
      last: () => vertex.requests.at(-1)?.body,
      sawSchema: (body) => {
        assert.equal(body.generationConfig.responseMimeType, 'application/json');
        const schema = body.generationConfig.responseJsonSchema ?? body.generationConfig.responseSchema;
        assert.deepEqual(schema.properties.city.type.toLowerCase(), 'string', JSON.stringify(schema));
      },
      sawThinking: (body) => {
        const config = body.generationConfig?.thinkingConfig;
        assert.ok(config !== undefined, JSON.stringify(body.generationConfig));
        assert.ok(config.thinkingBudget > 0 || config.thinkingLevel !== undefined, JSON.stringify(config));
      },
    },
    {
      name: 'azure (v1 API)',
      model: 'provider-c/gpt-4o',
      thinkingModel: 'provider-c/o4-mini',
      structured: jsonText,
      replyNext: (reply) => azure.openai.replyNext(reply),
      last: () => azure.openai.requests.at(-1)?.body,
      sawSchema: (body) => {
        assert.equal(body.response_format.type, 'json_schema');
        assert.deepEqual(body.response_format.json_schema.schema, SCHEMA);
      },
      sawThinking: (body) => assert.equal(body.reasoning_effort, 'medium', JSON.stringify(body)),
    },
  ];

  for (const cloud of CLOUDS) {
    it(`${cloud.name}: a json_schema response format is the cloud's structured output, answered as JSON`, async () => {
      for (const stream of [false, true]) {
        cloud.replyNext(cloud.structured);
        const reply = await gw.post('/v1/chat/completions', {
          model: cloud.model,
          messages: [{ role: 'user', content: 'Where is the Eiffel tower?' }],
          response_format: FORMAT,
          stream,
        });
        assert.equal(reply.status, 200, reply.text.slice(0, 400));
        cloud.sawSchema(cloud.last());
        const content = stream ? streamedContent(reply.text) : reply.body.choices[0].message.content;
        assert.deepEqual(JSON.parse(content), { city: 'Paris' }, `stream ${stream}`);
      }
    });

    it(`${cloud.name}: a reasoning effort is the cloud's thinking, and the answer after it arrives`, async () => {
      cloud.replyNext({
        thinking: [{ text: 'The tower is in Paris.', signature: 'c2lnLXRoaW5r' }],
        text: 'Paris.',
      });
      const reply = await gw.post('/v1/chat/completions', {
        model: cloud.thinkingModel ?? cloud.model,
        messages: [{ role: 'user', content: 'Where is the Eiffel tower?' }],
        reasoning_effort: 'medium',
        max_completion_tokens: 8000,
      });
      assert.equal(reply.status, 200, reply.text.slice(0, 400));
      cloud.sawThinking(cloud.last());
      assert.equal(reply.body.choices[0].message.content, 'Paris.');
    });
  }
});

/** The content of a streamed Chat Completion, its deltas joined. */
function streamedContent(text: string): string {
  let content = '';
  for (const line of text.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    content += JSON.parse(line.slice(6)).choices?.[0]?.delta?.content ?? '';
  }
  return content;
}
