import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../platform/errors.ts';
import type { ChatMessage, ToolDefinition } from '../../domain/messages.ts';
import type { ChatInput } from '../../domain/use-case-inputs.ts';
import { SchemaCompiler } from '../../json/schema-compiler.ts';
import { validateToolRequest } from './validate-tool-request.ts';

const settings = { maxAttempts: 3, maxSchemaBytes: 64 * 1024, maxSchemaDepth: 48, schemaCacheSize: 10 };
const messages: ChatMessage[] = [{ role: 'user', content: 'hi' }];
const tool = (name: string, properties: Record<string, unknown> = {}): ToolDefinition => ({
  name,
  parameters: { type: 'object', properties },
});

/** The pointer of the 400 a ChatInput gets, or undefined when it is accepted. */
function faultOf(input: ChatInput, compiler = new SchemaCompiler(settings)): string | undefined {
  try {
    validateToolRequest(input, compiler);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    assert.equal(error.code, 'invalid_request');
    return (error.details as { path: string }[])[0]?.path;
  }
}

describe('validateToolRequest (the check every door runs on its ChatInput)', () => {
  it('accepts a request without tools, and a valid tool loop', () => {
    assert.equal(faultOf({ messages }), undefined);
    const loop: ChatMessage[] = [
      ...messages,
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'a', arguments: '{}' }] },
      { role: 'tool', content: 'done', toolCallId: 'c1' },
    ];
    assert.equal(faultOf({ messages: loop, tools: [tool('a')], toolChoice: { name: 'a' } }), undefined);
  });

  it('checks what only the native schema checked before: names, counts and parameter shapes', () => {
    assert.equal(faultOf({ messages, tools: [tool('has space')] }), '/tools/0/name');
    assert.equal(faultOf({ messages, tools: [tool('x'.repeat(65))] }), '/tools/0/name');
    const many = Array.from({ length: 129 }, (_, i) => tool(`t${i}`));
    assert.equal(faultOf({ messages, tools: many }), '/tools');
    const arrayParameters = { name: 'a', parameters: [] as unknown as Record<string, unknown> };
    assert.equal(faultOf({ messages, tools: [arrayParameters] }), '/tools/0/parameters');
  });

  it('compiles a tool list once: the same tools, keys in another order, are not compiled again', () => {
    const compiler = new SchemaCompiler(settings);
    let compiles = 0;
    const counting = Object.create(compiler, {
      compile: {
        value: (schema: unknown) => {
          compiles++;
          return compiler.compile(schema);
        },
      },
      maxDepth: { value: compiler.maxDepth },
    }) as SchemaCompiler;
    const first = [tool('a', { x: { type: 'string', minLength: 1 } }), tool('b')];
    const reordered = [
      { parameters: { properties: { x: { minLength: 1, type: 'string' } }, type: 'object' }, name: 'a' },
      tool('b'),
    ];
    assert.equal(faultOf({ messages, tools: first }, counting), undefined);
    assert.equal(compiles, 2);
    assert.equal(faultOf({ messages, tools: reordered }, counting), undefined);
    assert.equal(compiles, 2, 'the second turn reused the first turn’s result');
    // A list that differs is checked afresh, and its fault still found.
    const broken = [tool('a', { x: { type: 'string', pattern: '(?=a)' } }), tool('b')];
    assert.equal(faultOf({ messages, tools: broken }, counting), '/tools/0/parameters/properties/x/pattern');
    assert.equal(faultOf({ messages, tools: broken }, counting), '/tools/0/parameters/properties/x/pattern');
  });
});
