import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../platform/errors.ts';
import { readResponsesRequest } from './read-responses-request.ts';

function refusedParam(body: unknown): string | undefined {
  try {
    readResponsesRequest(body);
  } catch (error) {
    assert.ok(error instanceof ApiError);
    return (error.details as { path: string }[])[0]?.path;
  }
  assert.fail('not refused');
}

describe('readResponsesRequest', () => {
  it('reads Codex-shaped items: developer messages, joined calls, outputs, reasoning left out', () => {
    const read = readResponsesRequest({
      model: 'gpt-5.5',
      instructions: 'Be a coder.',
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Rules.' }] },
        { role: 'user', content: 'Do it.' },
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'On it.' }] },
        { type: 'function_call', call_id: 'c1', name: 'exec_command', arguments: '{"cmd":"ls"}' },
        { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch' },
        { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'a.txt' }] },
        { type: 'custom_tool_call_output', call_id: 'c2', output: 'Success.' },
      ],
    });
    assert.equal(read.use, 'chat');
    assert.deepEqual(read.input.messages, [
      { role: 'system', content: 'Be a coder.' },
      { role: 'system', content: 'Rules.' },
      { role: 'user', content: 'Do it.' },
      {
        role: 'assistant',
        content: 'On it.',
        toolCalls: [
          { id: 'c1', name: 'exec_command', arguments: '{"cmd":"ls"}' },
          { id: 'c2', name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' },
        ],
      },
      { role: 'tool', content: 'a.txt', toolCallId: 'c1' },
      { role: 'tool', content: 'Success.', toolCallId: 'c2' },
    ]);
    assert.deepEqual(read.sources, [
      '/instructions',
      '/input/0',
      '/input/1',
      '/input/3',
      '/input/6',
      '/input/7',
    ]);
  });

  it('flattens namespaces, keeps custom tools as one string, and leaves hosted tools out', () => {
    const read = readResponsesRequest({
      model: 'm',
      input: 'hi',
      tools: [
        { type: 'custom', name: 'apply_patch', format: { type: 'grammar' } },
        {
          type: 'namespace',
          name: 'mcp__files__',
          tools: [{ type: 'function', name: 'read', parameters: { type: 'object', properties: {} } }],
        },
        { type: 'namespace', name: 'agents', tools: [{ type: 'custom', name: 'note' }] },
        { type: 'local_shell' },
        { type: 'file_search', vector_store_ids: [] },
      ],
      tool_choice: { type: 'function', name: 'read', namespace: 'mcp__files__' },
    });
    assert.equal(read.use, 'chat');
    assert.deepEqual(
      read.input.tools?.map((tool) => tool.name),
      ['apply_patch', 'mcp__files__read', 'agents__note'],
    );
    assert.deepEqual(read.input.tools?.[0]?.parameters['required'], ['input']);
    assert.deepEqual(read.tools.ignored, ['local_shell', 'file_search']);
    assert.deepEqual(read.tools.origins.get('mcp__files__read'), {
      kind: 'function',
      name: 'read',
      namespace: 'mcp__files__',
    });
    assert.deepEqual(read.tools.origins.get('agents__note'), {
      kind: 'custom',
      name: 'note',
      namespace: 'agents',
    });
    assert.deepEqual(read.input.toolChoice, { name: 'mcp__files__read' });
  });

  it('a namespaced call in the history goes upstream by its flat name', () => {
    const read = readResponsesRequest({
      model: 'm',
      input: [
        { role: 'user', content: 'x' },
        { type: 'function_call', call_id: 'c', name: 'read', namespace: 'mcp__files__', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c', output: 'ok' },
      ],
    });
    assert.equal(read.input.messages[1]?.toolCalls?.[0]?.name, 'mcp__files__read');
  });

  it('text.format json_schema is the JSON use case', () => {
    const read = readResponsesRequest({
      model: 'm',
      input: 'x',
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' } } },
    });
    assert.equal(read.use, 'json');
    assert.equal(read.use === 'json' ? read.input.schemaName : undefined, 'answer');
  });

  it('refuses, naming the field, what it cannot carry', () => {
    assert.equal(refusedParam({ input: 'x' }), '/model');
    assert.equal(refusedParam({ model: 'm', input: 3 }), '/input');
    assert.equal(refusedParam({ model: 'm', input: [] }), '/input');
    assert.equal(refusedParam({ model: 'm', input: [{ type: 'item_reference', id: 'x' }] }), '/input/0/type');
    assert.equal(
      refusedParam({
        model: 'm',
        input: [{ role: 'user', content: [{ type: 'input_file', file_url: 'https://a' }] }],
      }),
      '/input/0/content/0/file_url',
    );
    assert.equal(refusedParam({ model: 'm', input: [{ role: 'tool', content: 'x' }] }), '/input/0/role');
    // An item type that is not a string is refused, not turned into text: `{"toString": 1}` was a 500.
    for (const type of [{ toString: 1 }, [{ valueOf: 1, toString: 2 }], [[1, null, 'x']], 7])
      assert.equal(refusedParam({ model: 'm', input: [{ type }] }), '/input/0/type');
    assert.equal(refusedParam({ model: 'm', input: 'x', background: true }), '/background');
    assert.equal(refusedParam({ model: 'm', input: 'x', top_p: 0.5 }), '/top_p');
    assert.equal(refusedParam({ model: 'm', input: 'x', tools: [{ type: 'function' }] }), '/tools/0/name');
    assert.equal(refusedParam({ model: 'm', input: 'x', metadata: { a: 'x'.repeat(20_000) } }), '/metadata');
  });
});
