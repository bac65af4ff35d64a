import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  addToTopLevelObject,
  findTopLevelValue,
  replaceTopLevelValue as replaceInBytes,
} from './json-splice.ts';

/** The splice on the text's UTF-8 bytes, read back as text. */
const replaceTopLevelValue = (text: string, key: string, valueJson: string) =>
  replaceInBytes(Buffer.from(text), key, valueJson)?.toString('utf8');
/** The value's text, found in the bytes of `text`. */
const valueText = (text: string, key: string) => {
  const bytes = Buffer.from(text);
  const span = findTopLevelValue(bytes, key);
  return span === undefined ? undefined : bytes.toString('utf8', span.start, span.end);
};

describe('replaceTopLevelValue', () => {
  it('replaces only the top-level model, keeping every other byte', () => {
    const text =
      '{ "messages":[{"role":"user","content":[{"type":"text","text":"\\"model\\": x","model":1}]}],\n "model" : "claude-x" ,"max_tokens":1e3}';
    const out = replaceTopLevelValue(text, 'model', '"upstream-model"');
    assert.equal(out, text.replace('"claude-x"', '"upstream-model"'));
    assert.equal(JSON.parse(out as string).max_tokens, 1000);
  });

  it('gives the same bytes back, not a copy, when the value already reads the same', () => {
    const bytes = Buffer.from('{"model":"claude-x","messages":[]}');
    assert.equal(replaceInBytes(bytes, 'model', '"claude-x"'), bytes);
    const changed = replaceInBytes(bytes, 'model', '"claude-y"') as Buffer;
    assert.notEqual(changed, bytes);
    assert.equal(changed.toString(), '{"model":"claude-y","messages":[]}');
  });

  it('takes the last of a repeated key, as JSON.parse does, and decodes escaped keys', () => {
    const text = '{"model":"a","mod\\u0065l":"b"}';
    const out = replaceTopLevelValue(text, 'model', '"c"') as string;
    assert.equal(out, '{"model":"a","mod\\u0065l":"c"}');
    assert.equal(JSON.parse(out).model, 'c');
  });

  it('finds values after nested strings with brackets and escapes', () => {
    const text = '{"system":[{"text":"}]{[\\\\"}],"model":"m"}';
    assert.deepEqual(findTopLevelValue(Buffer.from(text), 'model'), {
      start: text.length - 4,
      end: text.length - 1,
    });
  });

  it('reads bytes: characters of several bytes before the key move the span by their bytes, not their characters', () => {
    const text = '{"messages":[{"content":"日本語 🙂 \\"quoted\\" é"}],"model":"claude-x","n":1}';
    assert.equal(valueText(text, 'model'), '"claude-x"');
    assert.equal(replaceTopLevelValue(text, 'model', '"up"'), text.replace('"claude-x"', '"up"'));
  });

  it('says undefined for a missing key or a text that is not an object', () => {
    assert.equal(replaceTopLevelValue('{"a":1}', 'model', '"x"'), undefined);
    assert.equal(replaceTopLevelValue('[1]', 'model', '"x"'), undefined);
    assert.equal(replaceTopLevelValue('{}', 'model', '"x"'), undefined);
  });
});

describe('addToTopLevelObject', () => {
  it('adds a member at the end of the usage object', () => {
    const text = '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":12}}';
    const out = addToTopLevelObject(text, 'usage', 'cost_usd', '0.0012') as string;
    assert.equal(
      out,
      '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":12,"cost_usd":0.0012}}',
    );
  });

  it('adds to an empty object without a comma, and refuses a field that is not an object', () => {
    assert.equal(addToTopLevelObject('{"usage": { } }', 'usage', 'c', '1'), '{"usage": { "c":1} }');
    assert.equal(addToTopLevelObject('{"usage":null}', 'usage', 'c', '1'), undefined);
  });
});

describe('findTopLevelValue, against JSON.parse', () => {
  // Strings made of what a scanner can trip on: quotes, backslashes (escaped runs of them
  // before a quote), brackets, commas, and text.
  const tricky = fc.string({
    unit: fc.constantFrom('"', '\\', '\\\\', '{', '}', '[', ']', ',', ':', 'a', 'é', ' '),
  });
  const value = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      tricky,
      fc.integer(),
      fc.constantFrom(null, true, false),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(tricky, tie('value'), { maxKeys: 4 }),
    ),
  })).value;

  it('finds the span whose text parses to the value JSON.parse gives the key', () => {
    fc.assert(
      fc.property(value, value, value, fc.constantFrom('', ' ', '\n  '), (before, model, after, space) => {
        const text = `{${space}"before":${JSON.stringify(before)},${space}"model"${space}:${space}${JSON.stringify(model)}${space},"after":${JSON.stringify(after)}}`;
        const found = valueText(text, 'model');
        assert.ok(found !== undefined);
        assert.deepEqual(JSON.parse(found), JSON.parse(text).model);
        const replaced = replaceTopLevelValue(text, 'model', '"upstream"') as string;
        assert.deepEqual(JSON.parse(replaced), { ...JSON.parse(text), model: 'upstream' });
      }),
      { numRuns: 500 },
    );
  });
});
