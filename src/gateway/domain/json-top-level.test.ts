import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  documentSpan,
  elementsOf,
  type IndexedValue,
  indexValue,
  membersOf,
  parseSpan,
} from './json-top-level.ts';

/** Strings made of what a scanner can trip on: quotes, backslashes, brackets, escapes, multi-byte text. */
const tricky = fc.string({
  unit: fc.constantFrom(
    '"',
    '\\',
    '\\\\',
    '{',
    '}',
    '[',
    ']',
    ',',
    ':',
    'a',
    'é',
    '日',
    '🙂',
    ' ',
    '\n',
    'u',
  ),
});

const value = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    tricky,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(tricky, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A key written as JSON.stringify writes it, or with every character escaped as \uXXXX. */
function writeKey(key: string, escaped: boolean): string {
  if (!escaped) return JSON.stringify(key);
  return `"${[...key].map((c) => [...c].map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')).join('')}"`;
}

/** An object's text with arbitrary whitespace, keys repeated and escaped: what a hostile client may send. */
const hostileObject = fc
  .array(
    fc.record({
      key: fc.oneof(tricky, fc.constantFrom('model', 'messages', 'stream', '__x')),
      value,
      escaped: fc.boolean(),
      space: fc.constantFrom('', ' ', '\n\t', '\r\n  '),
    }),
    { maxLength: 8 },
  )
  .chain((members) =>
    fc
      .subarray(members)
      .map((repeated) => [...members, ...repeated.map((member) => ({ ...member, value: 'again' }))]),
  )
  .map(
    (members) =>
      `{${members
        .map(
          (m) =>
            `${m.space}${writeKey(m.key, m.escaped)}${m.space}:${m.space}${JSON.stringify(m.value)}${m.space}`,
        )
        .join(',')}}`,
  );

const bytesOf = (text: string) => Buffer.from(text);

describe('membersOf, against JSON.parse', () => {
  it('finds every member of a valid object, the last of a repeated key, with its value as JSON.parse reads it', () => {
    fc.assert(
      fc.property(hostileObject, fc.boolean(), (text, bom) => {
        const bytes = bytesOf(bom ? `\uFEFF${text}` : text);
        const parsed = JSON.parse(text) as Record<string, unknown>;
        const members = membersOf(bytes);
        assert.ok(members !== undefined);
        assert.deepEqual([...members.keys()].sort(), Object.keys(parsed).sort());
        for (const [key, span] of members) assert.deepEqual(parseSpan(bytes, span), parsed[key]);
      }),
      { numRuns: 400 },
    );
  });

  it('finds the elements of an array as JSON.parse reads them', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 6 }), (array) => {
        const bytes = bytesOf(JSON.stringify(array, null, 1));
        const elements = elementsOf(bytes, documentSpan(bytes) as { start: number; end: number });
        assert.deepEqual(
          elements?.map((span) => parseSpan(bytes, span)),
          JSON.parse(JSON.stringify(array)),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('says no object for any other document', () => {
    for (const text of ['[1]', '"{}"', '1', 'null', 'true', ' [{"a":1}]'])
      assert.equal(membersOf(bytesOf(text)), undefined);
  });

  it('walks a nesting deeper than the call stack allows', () => {
    const depth = 200_000;
    const text = `{"deep":${'['.repeat(depth)}${']'.repeat(depth)},"model":"m"}`;
    const members = membersOf(bytesOf(text));
    assert.equal(parseSpan(bytesOf(text), members?.get('model') as { start: number; end: number }), 'm');
  });

  it('ends without throwing on any bytes at all, JSON or not', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 64 }),
          fc
            .string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', ':', ',', 'a', '1', ' ') })
            .map(bytesOf),
          hostileObject.map((text) => bytesOf(text.slice(0, Math.floor(text.length / 2)))),
        ),
        (bytes) => {
          const members = membersOf(bytes);
          if (members === undefined) return;
          for (const span of members.values()) assert.ok(span.start < span.end && span.end <= bytes.length);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('indexes nested values in one walk as membersOf and elementsOf find them level by level', () => {
    /** The same tree made by membersOf and elementsOf, each level walked again. */
    const levelByLevel = (
      bytes: Buffer,
      span: { start: number; end: number },
      depth: number,
    ): IndexedValue => {
      const node: IndexedValue = { start: span.start, end: span.end };
      if (depth <= 0) return node;
      const members = membersOf(bytes, span);
      const elements = members === undefined ? elementsOf(bytes, span) : undefined;
      if (members !== undefined)
        node.members = new Map(
          [...members].map(([key, inner]) => [key, levelByLevel(bytes, inner, depth - 1)]),
        );
      if (elements !== undefined)
        node.elements = elements.map((inner) => levelByLevel(bytes, inner, depth - 1));
      return node;
    };
    fc.assert(
      fc.property(
        fc.oneof(
          hostileObject,
          value.map((v) => JSON.stringify(v, null, 1)),
        ),
        fc.integer({ min: 0, max: 4 }),
        (text, depth) => {
          const bytes = bytesOf(text);
          const span = documentSpan(bytes) as { start: number; end: number };
          assert.deepEqual(indexValue(bytes, span, depth), levelByLevel(bytes, span, depth));
        },
      ),
      { numRuns: 400 },
    );
  });
});
