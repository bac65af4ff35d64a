import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { readRelayFields } from './read-relay-fields.ts';
import { readRelayFieldsBytes, topLevelFieldOf } from './read-relay-fields-bytes.ts';

/** What a reading gives (its texts read), or the message of the 400 it throws. */
function outcome(read: () => { texts: string[] | (() => string[]) }): unknown {
  try {
    const { texts, ...fields } = read();
    return { ...fields, texts: typeof texts === 'function' ? texts() : texts };
  } catch (error) {
    return { refused: (error as Error).message };
  }
}

const text = fc.string({ unit: fc.constantFrom('a', '"', '\\', '{', ']', 'é', '🙂', ' ') });
const scalar = fc.oneof(text, fc.integer({ min: -2, max: 9000 }), fc.boolean(), fc.constant(null));
const part = fc.oneof(
  fc.record({ text }),
  fc.record({ inlineData: fc.record({ mimeType: text, data: text }) }),
  scalar,
);
const content = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record(
      { role: text, parts: fc.oneof(fc.array(part, { maxLength: 3 }), scalar) },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: scalar },
);
const body = fc.record(
  {
    contents: fc.oneof(
      { weight: 6, arbitrary: fc.array(content, { maxLength: 4 }) },
      { weight: 1, arbitrary: scalar },
    ),
    systemInstruction: fc.oneof(fc.record({ parts: fc.array(part, { maxLength: 2 }) }), scalar),
    generationConfig: fc.oneof(
      fc.record({ maxOutputTokens: scalar, responseMimeType: text }, { requiredKeys: [] }),
      scalar,
    ),
    tools: fc.oneof(
      fc.array(fc.oneof(fc.record({ functionDeclarations: fc.array(fc.record({ name: text })) }), scalar)),
      scalar,
    ),
  },
  { requiredKeys: [] },
);

describe('readRelayFieldsBytes, against readRelayFields of the parsed body', () => {
  it('reads the same fields and texts, or refuses with the same 400, for any body', () => {
    fc.assert(
      fc.property(
        fc.oneof({ weight: 8, arbitrary: body }, { weight: 1, arbitrary: fc.array(scalar) }),
        (value) => {
          const bytes = Buffer.from(JSON.stringify(value));
          assert.deepEqual(
            outcome(() => readRelayFieldsBytes(bytes)),
            outcome(() => readRelayFields(JSON.parse(bytes.toString()))),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reads one top-level field, the last of a repeated key', () => {
    const bytes = Buffer.from(
      '{"generationConfig":{"a":1},"contents":[],"generationConfig":{"responseMimeType":"application/json"}}',
    );
    assert.deepEqual(topLevelFieldOf(bytes, 'generationConfig'), { responseMimeType: 'application/json' });
    assert.equal(topLevelFieldOf(bytes, 'tools'), undefined);
  });
});
