import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { readRelayBytes } from './read-relay-bytes.ts';
import { readRelayRequest } from './read-relay-request.ts';

/** What a reading gives, or the message of the 400 it throws. */
function outcome(read: () => { texts: readonly string[] | (() => readonly string[]) } & object): unknown {
  try {
    const {
      texts,
      bytes: _bytes,
      ...fields
    } = read() as Record<string, unknown> & {
      texts: readonly string[] | (() => readonly string[]);
    };
    return { ...fields, texts: [...(typeof texts === 'function' ? texts() : texts)].sort() };
  } catch (error) {
    return { refused: (error as Error).message };
  }
}

const text = fc.string({ unit: fc.constantFrom('a', '"', '\\', '{', ']', 'é', '🙂', ' ') });
const scalar = fc.oneof(text, fc.integer({ min: -2, max: 5 }), fc.boolean(), fc.constant(null), fc.double());
const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({ type: fc.constant('image'), source: fc.record({ type: fc.constant('base64'), data: text }) }),
  fc.record({ type: fc.constant('tool_use'), id: text, name: text, input: fc.dictionary(text, scalar) }),
  scalar,
  fc.array(scalar, { maxLength: 2 }),
);
const message = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      { role: fc.oneof(text, scalar), content: fc.oneof(text, fc.array(block)) },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 2 }) },
);
const body = fc.record(
  {
    model: fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom('claude-x', 'm'.repeat(300)) },
      { weight: 1, arbitrary: scalar },
    ),
    max_tokens: fc.oneof(fc.integer({ min: -1, max: 4096 }), scalar),
    messages: fc.oneof(
      { weight: 6, arbitrary: fc.array(message, { maxLength: 4 }) },
      { weight: 1, arbitrary: scalar },
    ),
    system: fc.oneof(text, fc.array(block, { maxLength: 2 }), scalar, fc.dictionary(text, scalar)),
    tools: fc.oneof(fc.array(fc.record({ name: text, description: text }), { maxLength: 3 }), scalar),
    stream: fc.oneof(fc.boolean(), scalar),
    metadata: fc.oneof(fc.record({ user_id: text }), scalar),
    thinking: fc.record({ type: fc.constant('adaptive') }),
  },
  { requiredKeys: [] },
);

describe('readRelayBytes, against readRelayRequest of the parsed body', () => {
  it('reads the same fields and texts, or refuses with the same 400, for any body', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          { weight: 8, arbitrary: body },
          { weight: 1, arbitrary: fc.oneof(scalar, fc.array(scalar)) },
        ),
        fc.constantFrom(undefined, 1),
        (value, indent) => {
          const bytes = Buffer.from(JSON.stringify(value, null, indent));
          assert.deepEqual(
            outcome(() => readRelayBytes(bytes)),
            outcome(() => readRelayRequest(JSON.parse(bytes.toString()))),
          );
        },
      ),
      { numRuns: 600 },
    );
  });

  it('takes the last of a repeated key and decodes escaped keys, as JSON.parse does', () => {
    const text =
      '{"model":"a","max_tokens":1,"mod\\u0065l":"b","messages":[{"role":"user","content":"x"}],"messages":[{"role":"user","content":[{"type":"text","text":"last"}]}]}';
    const read = readRelayBytes(Buffer.from(text));
    assert.equal(read.model, 'b');
    assert.deepEqual(read.texts(), ['last']);
    assert.deepEqual(
      outcome(() => read),
      outcome(() => readRelayRequest(JSON.parse(text))),
    );
  });

  it('does not read the texts until asked', () => {
    // A prompt the reading would fail on if it parsed it: the bytes are JSON but the span reads are lazy.
    const bytes = Buffer.from(
      JSON.stringify({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] }),
    );
    const read = readRelayBytes(bytes);
    bytes.write('{', bytes.indexOf('"hi"'));
    assert.throws(() => read.texts(), SyntaxError);
  });
});
