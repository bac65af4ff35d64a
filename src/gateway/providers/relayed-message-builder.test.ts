import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isKeptMessageText, RelayedMessageBuilder } from './relayed-message-builder.ts';

/** A stream as Anthropic writes it: thinking with its signature, text with a citation, a tool call in pieces. */
const EVENTS: [string, unknown][] = [
  [
    'message_start',
    {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-x',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 9, output_tokens: 1 },
      },
    },
  ],
  ['ping', { type: 'ping' }],
  [
    'content_block_start',
    {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    },
  ],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hm' } },
  ],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'm.' } },
  ],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'c2ln' } },
  ],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  [
    'content_block_start',
    { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
  ],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hel' } },
  ],
  [
    'content_block_delta',
    {
      type: 'content_block_delta',
      index: 1,
      delta: { type: 'citations_delta', citation: { type: 'char_location', cited_text: 'x' } },
    },
  ],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'lo' } },
  ],
  ['content_block_stop', { type: 'content_block_stop', index: 1 }],
  [
    'content_block_start',
    {
      type: 'content_block_start',
      index: 2,
      content_block: { type: 'tool_use', id: 't1', name: 'Read', input: {} },
    },
  ],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"pa' } },
  ],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: 'th":"/a"}' } },
  ],
  ['content_block_stop', { type: 'content_block_stop', index: 2 }],
  [
    'message_delta',
    {
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 30 },
    },
  ],
  ['message_stop', { type: 'message_stop' }],
];

function build(events: [string, unknown][], maxBytes = 1_000_000): RelayedMessageBuilder {
  const builder = new RelayedMessageBuilder(maxBytes);
  for (const [event, data] of events)
    builder.add(event, typeof data === 'string' ? data : JSON.stringify(data));
  return builder;
}

describe('RelayedMessageBuilder', () => {
  it('rebuilds the final Message from its events', () => {
    const builder = build(EVENTS);
    assert.deepEqual(JSON.parse(builder.message() ?? 'null'), {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [
        { type: 'thinking', thinking: 'Hmm.', signature: 'c2ln' },
        { type: 'text', text: 'Hello', citations: [{ type: 'char_location', cited_text: 'x' }] },
        { type: 'tool_use', id: 't1', name: 'Read', input: { path: '/a' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 9, output_tokens: 30 },
    });
    assert.equal(builder.model, 'claude-x');
    assert.deepEqual(builder.streamUsage, {
      start: { input_tokens: 9, output_tokens: 1 },
      delta: { output_tokens: 30 },
    });
  });

  it('gives nothing for a stream it cannot vouch for', () => {
    const cases: [string, [string, unknown][], number?][] = [
      ['no message_stop', EVENTS.slice(0, -1)],
      [
        'an error event',
        [
          ...EVENTS.slice(0, 6),
          ['error', { type: 'error', error: { type: 'overloaded_error' } }],
          ...EVENTS.slice(6),
        ],
      ],
      [
        'a delta it does not know',
        [
          ...EVENTS.slice(0, 9),
          ['content_block_delta', { index: 1, delta: { type: 'future_delta' } }],
          ...EVENTS.slice(9),
        ],
      ],
      [
        'data that is no JSON',
        [...EVENTS.slice(0, 9), ['content_block_delta', '{not json'], ...EVENTS.slice(9)],
      ],
      [
        'a pause_turn',
        EVENTS.map(([e, d]) =>
          e === 'message_delta' ? [e, { delta: { stop_reason: 'pause_turn' } }] : [e, d],
        ),
      ],
      ['over the bound', EVENTS, 500],
      [
        'events after message_stop',
        [...EVENTS, ['content_block_start', { index: 3, content_block: { type: 'text', text: '' } }]],
      ],
    ];
    for (const [name, events, maxBytes] of cases)
      assert.equal(build(events, maxBytes).message(), undefined, name);
  });

  it('a whole answer is kept when it is a Message that ended normally', () => {
    for (const reason of ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use'])
      assert.ok(isKeptMessageText(`{"type":"message","content":[],"stop_reason":"${reason}"}`), reason);
    for (const text of ['{"type":"message","stop_reason":"refusal"}', '{"type":"error"}', 'not json', '[]'])
      assert.ok(!isKeptMessageText(text), text);
  });
});
