import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../platform/errors.ts';
import { renameAnthropicFault, toAnthropicField } from './rename-anthropic-fault.ts';

describe('renameAnthropicFault', () => {
  it("names the gateway's pointers by Anthropic's fields", () => {
    assert.equal(toAnthropicField('/tools/2/parameters/properties/a'), 'tools.2.input_schema.properties.a');
    assert.equal(toAnthropicField('/tools/0/name'), 'tools.0.name');
    assert.equal(toAnthropicField('/tools'), 'tools');
    assert.equal(toAnthropicField('/toolChoice/name'), 'tool_choice.name');
    assert.equal(toAnthropicField('/messages/3/toolCalls'), 'messages');
    assert.equal(
      toAnthropicField('/tools/0/parameters/properties/a~1b'),
      'tools.0.input_schema.properties.a/b',
    );
  });

  it('prefixes the message with the field, keeps the details, and leaves other errors alone', () => {
    const fault = new ApiError('invalid_request', 'a tool name must match ^[a-zA-Z0-9_-]{1,64}$', {
      details: [{ path: '/tools/1/name', message: 'x' }],
    });
    const named = renameAnthropicFault(fault) as ApiError;
    assert.equal(named.message, 'tools.1.name: a tool name must match ^[a-zA-Z0-9_-]{1,64}$');
    assert.equal(named.statusCode, 400);
    assert.deepEqual(named.details, fault.details);
    const other = new ApiError('rate_limited', 'slow down');
    assert.equal(renameAnthropicFault(other), other);
    const plain = new Error('boom');
    assert.equal(renameAnthropicFault(plain), plain);
  });
});
