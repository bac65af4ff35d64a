import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../platform/errors.ts';
import { renameOpenAIFault, toOpenAIBodyPointer } from './rename-openai-fault.ts';

describe('tool fault pointers in the OpenAI body', () => {
  it('maps each ChatInput place to the field the client sent', () => {
    const cases: [string, string][] = [
      ['/tools/0/name', '/tools/0/function/name'],
      ['/tools/3/parameters', '/tools/3/function/parameters'],
      ['/tools/3/parameters/properties/x/type', '/tools/3/function/parameters/properties/x/type'],
      ['/tools', '/tools'],
      ['/messages/2/toolCalls', '/messages/2/tool_calls'],
      ['/messages/2/toolCalls/1/id', '/messages/2/tool_calls/1/id'],
      ['/messages/2/toolCalls/1/name', '/messages/2/tool_calls/1/function/name'],
      ['/messages/2/toolCalls/1/arguments', '/messages/2/tool_calls/1/function/arguments'],
      ['/messages/4/toolCallId', '/messages/4/tool_call_id'],
      ['/toolChoice', '/tool_choice'],
      ['/toolChoice/name', '/tool_choice/function/name'],
      ['/messages/0/content', '/messages/0/content'],
    ];
    for (const [from, to] of cases) assert.equal(toOpenAIBodyPointer(from), to, from);
  });

  it('rewrites the details of a 400 and lets other errors through', () => {
    const renamed = renameOpenAIFault(
      new ApiError('invalid_request', 'bad', { details: [{ path: '/toolChoice/name', message: 'm' }] }),
    );
    assert.ok(renamed instanceof ApiError);
    assert.equal((renamed.details as { path: string }[])[0]?.path, '/tool_choice/function/name');
    const other = new Error('x');
    assert.equal(renameOpenAIFault(other), other);
    const withoutDetails = new ApiError('rate_limited', 'slow down');
    assert.equal(renameOpenAIFault(withoutDetails), withoutDetails);
  });
});
