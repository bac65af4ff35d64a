import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildReaskPrompt, parseModelOutput } from './json-output.ts';

describe('parseModelOutput', () => {
  const ok: [string, unknown][] = [
    ['{"a":1}', { a: 1 }],
    ['  [1, 2]  ', [1, 2]],
    ['```json\n{"a":1}\n```', { a: 1 }],
    ['```\n"text"\n```', 'text'],
    ['null', null],
  ];
  for (const [text, value] of ok) {
    it(`reads ${JSON.stringify(text)}`, () => assert.deepEqual(parseModelOutput(text), { ok: true, value }));
  }
  for (const text of ['', 'Sure! {"a":1}', '{"a":', '```json\n{"a"\n```']) {
    it(`rejects ${JSON.stringify(text)} with an issue at the root`, () => {
      const result = parseModelOutput(text);
      assert.equal(result.ok, false);
      if (!result.ok) assert.equal(result.issues[0]?.path, '');
    });
  }

  it('builds a re-ask prompt naming every issue by pointer', () => {
    const prompt = buildReaskPrompt([
      { path: '/age', message: 'must be integer' },
      { path: '', message: "must have required property 'name'" },
    ]);
    assert.match(prompt, /"\/age": must be integer/);
    assert.match(prompt, /"\/": must have required property 'name'/);
  });
});
