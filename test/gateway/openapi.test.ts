import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { shareGateway } from '../helpers/gateway-harness.ts';

describe('GET /openapi.json (surface A)', () => {
  const gw = shareGateway({ env: { PUBLIC_GATEWAY_URL: 'https://gateway.example.com/' } });
  let doc: any;
  before(async () => {
    const res = await gw.get('/openapi.json', { auth: false });
    assert.equal(res.status, 200);
    doc = res.body;
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    assert.equal(doc.openapi, '3.1.0');
    await SwaggerParser.validate(structuredClone(doc));
  });

  it('describes every surface A operation, the public base URL and both credential headers', () => {
    assert.deepEqual(Object.keys(doc.paths).sort(), [
      '/health',
      '/mcp',
      '/v1/chat',
      '/v1/embed',
      '/v1/json',
      '/v1/usage',
    ]);
    assert.equal(doc.info.version, '1.0.0');
    assert.equal(doc.servers[0].url, 'https://gateway.example.com');
    assert.deepEqual(doc.security, [
      { gatewayApp: [], gatewaySecret: [] },
      { appBearer: [] },
      { appApiKey: [] },
    ]);
    assert.equal(doc.components.securitySchemes.appBearer.scheme, 'bearer');
    assert.equal(doc.components.securitySchemes.appApiKey.name, 'x-api-key');
    assert.equal(doc.components.securitySchemes.gatewaySecret.name, 'x-gateway-secret');
    assert.deepEqual(doc.paths['/health'].get.security, []);
  });

  it('is generated from the validating schemas: the request rules appear in it', async () => {
    const resolved: any = await SwaggerParser.dereference(structuredClone(doc));
    const chat = resolved.paths['/v1/chat'].post;
    const body = chat.requestBody.content['application/json'].schema;
    assert.deepEqual(body.required, ['messages']);
    assert.equal(body.properties.temperature.maximum, 2);
    assert.equal(body.properties.messages.minItems, 1);
    assert.deepEqual(body.properties.messages.items.properties.role.enum, [
      'system',
      'user',
      'assistant',
      'tool',
    ]);
    assert.ok(chat.responses['200'].content['text/event-stream'], 'the SSE answer is described');
    assert.ok(chat.responses['401'], 'the 401 envelope is described');
  });

  it('describes tool calling: tools, toolChoice, toolCalls, toolCallId, finishReason', async () => {
    const resolved: any = await SwaggerParser.dereference(structuredClone(doc));
    const chat = resolved.paths['/v1/chat'].post;
    const body = chat.requestBody.content['application/json'].schema;
    const tool = body.properties.tools.items;
    assert.equal(body.properties.tools.maxItems, 128);
    assert.deepEqual(tool.required.sort(), ['name', 'parameters']);
    assert.equal(tool.properties.name.pattern, '^[a-zA-Z0-9_-]{1,64}$');
    assert.equal(tool.properties.parameters.type, 'object');
    const choices = body.properties.toolChoice.anyOf;
    assert.deepEqual(choices[0].enum, ['auto', 'none', 'required']);
    assert.deepEqual(choices[1].required, ['name']);
    const message = body.properties.messages.items;
    assert.deepEqual(message.properties.toolCalls.items.required.sort(), ['arguments', 'id', 'name']);
    assert.equal(message.properties.toolCallId.type, 'string');
    const answer = chat.responses['200'].content['application/json'].schema;
    assert.deepEqual(answer.properties.finishReason.enum, [
      'stop',
      'length',
      'tool_calls',
      'content_filter',
      'other',
    ]);
    assert.ok(answer.required.includes('finishReason'));
    assert.ok(answer.properties.message.properties.toolCalls, 'the answer carries the calls');
    assert.match(chat.responses['200'].description, /tool_call/);
    for (const name of ['Tool', 'ToolCall', 'ToolChoice']) assert.ok(doc.components.schemas[name], name);
  });

  it('describes POST /mcp with the app credentials, JSON-RPC refusals and the limit state, and GET/DELETE as 405', async () => {
    const resolved: any = await SwaggerParser.dereference(structuredClone(doc));
    const mcp = resolved.paths['/mcp'];
    assert.deepEqual(Object.keys(mcp).sort(), ['delete', 'get', 'post']);
    const post = mcp.post;
    assert.equal(post.operationId, 'mcp');
    assert.equal(post.security, undefined, "the document's app credentials apply, as on /v1/chat");
    assert.deepEqual(post.requestBody.content['application/json'].schema.properties.jsonrpc.enum, ['2.0']);
    const ok = post.responses['200'];
    assert.ok(ok.headers['x-ratelimit-remaining-requests'], 'the limit state of contract 5.8');
    assert.ok(ok.content['application/json'].schema.properties.result);
    for (const status of ['400', '401', '406', '413', '415', '500', '503']) {
      const schema = post.responses[status]?.content['application/json'].schema;
      assert.deepEqual(schema?.required, ['jsonrpc', 'error', 'id'], `${status}: a JSON-RPC error`);
    }
    for (const method of ['get', 'delete']) {
      const refusal = mcp[method].responses['405'];
      assert.equal(refusal.headers.allow.schema.const, 'POST', method);
      assert.equal(refusal.content['application/json'].schema.properties.error.type, 'object');
    }
  });
});
