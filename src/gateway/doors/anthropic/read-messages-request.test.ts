import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../platform/errors.ts';
import { TOOL_ERROR_PREFIX } from './read-messages.ts';
import { readCountTokensRequest, readMessagesRequest } from './read-messages-request.ts';

const weather = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

function body(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }], ...extra };
}

function refusal(input: unknown): string {
  try {
    readMessagesRequest(input);
  } catch (error) {
    assert.ok(error instanceof ApiError);
    assert.equal(error.statusCode, 400);
    return error.message;
  }
  assert.fail('expected a 400');
}

describe('readMessagesRequest', () => {
  it('reads the required fields, system first, and the optional ones', () => {
    const read = readMessagesRequest(
      body({
        system: 'Be brief.',
        temperature: 0.5,
        stop_sequences: ['END'],
        stream: true,
        metadata: { user_id: 'u' },
      }),
    );
    assert.equal(read.model, 'claude-x');
    assert.equal(read.stream, true);
    assert.deepEqual(read.metadata, { user_id: 'u' });
    assert.deepEqual(read.input, {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      maxTokens: 100,
      temperature: 0.5,
      stop: ['END'],
    });
  });

  it('joins text blocks, keeps the order of text and tool results, and notes is_error', () => {
    const read = readMessagesRequest(
      body({
        system: [
          { type: 'text', text: 'One.' },
          { type: 'text', text: 'Two.', cache_control: { type: 'ephemeral' } },
        ],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Looking.' },
              { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
              { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: '18°C' },
              {
                type: 'tool_result',
                tool_use_id: 'toolu_2',
                content: [{ type: 'text', text: 'no data' }],
                is_error: true,
              },
              { type: 'text', text: 'Thanks.' },
            ],
          },
        ],
        tools: [weather],
      }),
    );
    assert.deepEqual(read.input.messages, [
      { role: 'system', content: 'One.\n\nTwo.' },
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Looking.',
        toolCalls: [
          { id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'toolu_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
        ],
      },
      { role: 'tool', content: '18°C', toolCallId: 'toolu_1' },
      { role: 'tool', content: `${TOOL_ERROR_PREFIX}no data`, toolCallId: 'toolu_2' },
      { role: 'user', content: 'Thanks.' },
    ]);
    assert.deepEqual(read.input.tools, [
      { name: 'get_weather', description: 'The weather in a city', parameters: weather.input_schema },
    ]);
  });

  it('maps tool_choice auto, any, tool and none; disable_parallel_tool_use keeps one call', () => {
    const choice = (tool_choice: unknown) => readMessagesRequest(body({ tools: [weather], tool_choice }));
    assert.equal(choice({ type: 'auto' }).input.toolChoice, 'auto');
    assert.equal(choice({ type: 'any' }).input.toolChoice, 'required');
    assert.deepEqual(choice({ type: 'tool', name: 'get_weather' }).input.toolChoice, { name: 'get_weather' });
    assert.equal(choice({ type: 'none' }).input.toolChoice, 'none');
    assert.equal(choice({ type: 'auto' }).singleToolCall, false);
    assert.equal(choice({ type: 'any', disable_parallel_tool_use: true }).singleToolCall, true);
  });

  it('ignores fields that do not change the answer', () => {
    const read = readMessagesRequest(
      body({
        service_tier: 'auto',
        output_config: { effort: 'low' },
        cache_control: { type: 'ephemeral' },
        something_new: 1,
        temperature: null,
      }),
    );
    assert.deepEqual(read.input, { messages: [{ role: 'user', content: 'Hi' }], maxTokens: 100 });
  });

  it('refuses, naming the field, what it cannot honour or read', () => {
    const cases: [unknown, RegExp][] = [
      [[], /^body: must be an object/],
      [{ model: 'x', messages: [{ role: 'user', content: 'Hi' }] }, /^max_tokens: field required/],
      [body({ max_tokens: 0 }), /^max_tokens: must be at least 1/],
      [body({ max_tokens: 1.5 }), /^max_tokens: must be an integer/],
      [body({ model: '' }), /^model: must not be empty/],
      [body({ messages: [] }), /^messages: must contain at least one message/],
      [
        body({ messages: [{ role: 'bot', content: 'x' }] }),
        /^messages\.0\.role: must be 'user' or 'assistant'/,
      ],
      [body({ temperature: 1.5 }), /^temperature: must be between 0 and 1/],
      [body({ top_p: 0.9 }), /^top_p: not supported/],
      [body({ top_k: 5 }), /^top_k: not supported/],
      [
        body({ output_config: { format: { type: 'json_schema', schema: {} } } }),
        /^output_config\.format: not supported/,
      ],
      [body({ stop_sequences: ['ok', 3] }), /^stop_sequences\.1: must be a string/],
      [
        body({ messages: [{ role: 'user', content: [{ type: 'document', source: {} }] }] }),
        /^messages\.0\.content\.0\.source\.type: must be 'base64', 'url' or 'text'/,
      ],
      [
        body({ messages: [{ role: 'user', content: [{ type: 'search_result', source: 'x' }] }] }),
        /^messages\.0\.content\.0\.type: 'search_result' blocks are not supported/,
      ],
      [
        body({
          messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'nope', content: 'x' }] }],
        }),
        /^messages\.0\.content\.0\.tool_use_id: answers no tool_use block/,
      ],
      [
        body({
          messages: [
            { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] },
            {
              role: 'user',
              content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'image', source: {} }] }],
            },
          ],
        }),
        /^messages\.1\.content\.0\.content\.0\.source\.type: must be 'base64' or 'url'/,
      ],
      [
        body({
          messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: [1] }] }],
        }),
        /^messages\.0\.content\.0\.input: must be an object/,
      ],
      [body({ tools: [{ type: 'bash_20250124', name: 'bash' }] }), /^tools\.0\.type: 'bash_20250124' tools/],
      [body({ tools: [weather, weather] }), /^tools\.1\.name: repeats the name/],
      [
        body({ tools: [{ name: 'f', input_schema: { type: 'string' } }] }),
        /^tools\.0\.input_schema\.type: must be 'object'/,
      ],
      [
        body({ tools: [weather], tool_choice: { type: 'tool', name: 'other' } }),
        /^tool_choice\.name: names no tool/,
      ],
      [body({ tool_choice: { type: 'any' } }), /^tool_choice\.type: 'any' needs tools/],
      [body({ tools: [weather], tool_choice: { type: 'sometimes' } }), /^tool_choice\.type: must be/],
      [body({ system: [{ type: 'image' }] }), /^system\.0\.type: 'image' blocks are not supported/],
    ];
    for (const [input, expected] of cases)
      assert.match(refusal(input), expected, JSON.stringify(input).slice(0, 200));
  });
});

describe('readCountTokensRequest', () => {
  it('reads the conversation and tools without max_tokens, by the same rules', () => {
    const read = readCountTokensRequest({
      model: 'm',
      system: 'S',
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [weather],
    });
    assert.equal(read.messages.length, 2);
    assert.equal(read.tools[0]?.name, 'get_weather');
    assert.throws(
      () =>
        readCountTokensRequest({ model: 'm', messages: [{ role: 'user', content: [{ type: 'image' }] }] }),
      ApiError,
    );
  });
});
