import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../platform/errors.ts';
import { JSON_OBJECT_SCHEMA } from '../json-object-schema.ts';
import type { OpenAIChatBody } from './openai-schemas.ts';
import { readCompletionRequest } from './read-completion-request.ts';

const user = { role: 'user' as const, content: 'hi' };
const plan = (extra: Record<string, unknown>, messages: unknown[] = [user]) =>
  readCompletionRequest({ model: 'm', messages, ...extra } as OpenAIChatBody);

function refusedAt(extra: Record<string, unknown>, pointer: string, messages?: unknown[]): void {
  assert.throws(
    () => plan(extra, messages),
    (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'invalid_request');
      assert.deepEqual(
        (error.details as { path: string }[]).map((d) => d.path),
        [pointer],
      );
      return true;
    },
  );
}

describe('readCompletionRequest', () => {
  it('maps every role: developer is system, text parts joined, tool calls and their results kept', () => {
    const result = plan({}, [
      { role: 'developer', content: 'rules' },
      {
        role: 'system',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      { role: 'user', content: 'q', name: 'ann' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: '42' }] },
    ]);
    assert.equal(result.use, 'chat');
    assert.deepEqual(result.input.messages, [
      { role: 'system', content: 'rules' },
      { role: 'system', content: 'ab' },
      { role: 'user', content: 'q', name: 'ann' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'f', arguments: '{"x":1}' }] },
      { role: 'tool', content: '42', toolCallId: 'call_1' },
    ]);
  });

  it('tools, tool_choice, stop, temperature and the token limit', () => {
    const result = plan({
      tools: [
        { type: 'function', function: { name: 'f', description: 'does f', parameters: { type: 'object' } } },
        { type: 'function', function: { name: 'g' } },
      ],
      tool_choice: { type: 'function', function: { name: 'g' } },
      stop: 'END',
      temperature: 0.5,
      max_tokens: 10,
      max_completion_tokens: 20,
    });
    assert.equal(result.use, 'chat');
    if (result.use !== 'chat') return;
    assert.deepEqual(result.input.tools, [
      { name: 'f', description: 'does f', parameters: { type: 'object' } },
      { name: 'g', parameters: { type: 'object', properties: {} } },
    ]);
    assert.deepEqual(result.input.toolChoice, { name: 'g' });
    assert.deepEqual(result.input.stop, ['END']);
    assert.equal(result.input.temperature, 0.5);
    assert.equal(result.input.maxTokens, 20, 'max_completion_tokens wins over the deprecated max_tokens');
    for (const choice of ['auto', 'none', 'required'] as const) {
      assert.equal((plan({ tool_choice: choice }).input as { toolChoice?: unknown }).toolChoice, choice);
    }
  });

  it('nulls read as absent, as the SDKs send them', () => {
    const result = plan({
      temperature: null,
      max_tokens: null,
      stop: null,
      tools: null,
      tool_choice: null,
      n: 1,
    });
    assert.deepEqual(result.input, { messages: [user], temperature: undefined });
    assert.equal(result.model, 'm', 'the model field, for the edge to resolve');
  });

  it('stream and include_usage', () => {
    assert.deepEqual([plan({}).stream, plan({}).includeUsage], [false, false]);
    assert.equal(plan({ stream: true }).includeUsage, false);
    assert.equal(plan({ stream: true, stream_options: { include_usage: true } }).includeUsage, true);
    assert.equal(plan({ stream: false, stream_options: { include_usage: true } }).includeUsage, false);
  });

  it('json_schema and json_object run the JSON use case', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const withSchema = plan({
      response_format: { type: 'json_schema', json_schema: { name: 'thing', schema } },
    });
    assert.equal(withSchema.use, 'json');
    assert.deepEqual([withSchema.input.schemaName, withSchema.input.schema], ['thing', schema]);
    const object = plan({ response_format: { type: 'json_object' } });
    assert.equal(object.use, 'json');
    assert.deepEqual(object.input.schema, JSON_OBJECT_SCHEMA);
    assert.equal(plan({ response_format: { type: 'text' } }).use, 'chat');
  });

  it('refuses what changes the answer and cannot be honoured, by pointer', () => {
    refusedAt({ n: 2 }, '/n');
    refusedAt({ logprobs: true }, '/logprobs');
    refusedAt({ top_logprobs: 0 }, '/top_logprobs');
    refusedAt({ audio: { voice: 'alloy', format: 'mp3' } }, '/audio');
    refusedAt({ modalities: ['text', 'audio'] }, '/modalities');
    refusedAt({ prediction: { type: 'content', content: 'x' } }, '/prediction');
    refusedAt({ functions: [{ name: 'f' }] }, '/functions');
    refusedAt({ top_p: 0.1 }, '/top_p');
    refusedAt({ presence_penalty: 1 }, '/presence_penalty');
    refusedAt({ logit_bias: { 1: 2 } }, '/logit_bias');
    refusedAt({ tools: [{ type: 'custom', custom: { name: 'x' } }] }, '/tools/0/type');
    refusedAt({ tool_choice: { type: 'allowed_tools', allowed_tools: {} } }, '/tool_choice/type');
    refusedAt({ response_format: { type: 'json_schema' } }, '/response_format');
    refusedAt(
      { response_format: { type: 'json_object' }, tools: [{ type: 'function', function: { name: 'f' } }] },
      '/response_format',
    );
    refusedAt({}, '/messages/0/content/0/type', [
      { role: 'user', content: [{ type: 'input_audio', input_audio: {} }] },
    ]);
    refusedAt({}, '/messages/0/role', [{ role: 'function', name: 'f', content: 'x' }]);
    refusedAt({}, '/messages/0', [{ role: 'tool', content: 'x' }]);
    refusedAt({}, '/messages/0/content', [{ role: 'assistant', content: null }]);
    refusedAt({}, '/messages/0/tool_calls/0/type', [
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'custom', custom: {} }] },
    ]);
  });

  it('ignores what only tunes the service', () => {
    const result = plan({
      user: 'u',
      seed: 1,
      store: true,
      service_tier: 'auto',
      reasoning_effort: 'low',
      parallel_tool_calls: false,
      top_p: 1,
      frequency_penalty: 0,
      logit_bias: {},
      modalities: ['text'],
    });
    assert.equal(result.use, 'chat');
  });
});
