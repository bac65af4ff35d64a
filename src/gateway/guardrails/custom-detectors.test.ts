import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileCustomPattern, compileWordList } from './custom-detectors.ts';
import type { Finding } from './finding.ts';

function run(detector: (text: string, into: Finding[]) => void, text: string): Finding[] {
  const found: Finding[] = [];
  detector(text, found);
  return found;
}

describe('custom patterns', () => {
  it('finds every match of a linear-time pattern, typed with the guard name', () => {
    const detector = compileCustomPattern('EMP-[0-9]{6}', 'employee_id', false);
    assert.deepEqual(run(detector, 'ids EMP-123456 and EMP-654321, not EMP-12'), [
      { start: 4, end: 14, type: 'employee_id' },
      { start: 19, end: 29, type: 'employee_id' },
    ]);
  });

  it('is case-insensitive when asked', () => {
    const detector = compileCustomPattern('project (falcon|osprey)', 'codename', true);
    assert.equal(run(detector, 'PROJECT Falcon launches').length, 1);
  });

  it('refuses lookaround and backreferences, an oversized pattern and one that matches nothing at all', () => {
    assert.throws(() => compileCustomPattern('(a)\\1', 'x', false), /not linear-time/);
    assert.throws(() => compileCustomPattern('secret(?=!)', 'x', false), /not linear-time/);
    assert.throws(() => compileCustomPattern('a'.repeat(1001), 'x', false), /at most 1000/);
    assert.throws(
      () => compileCustomPattern('(a{1000}){1000}', 'x', false),
      /repetition|instructions|not linear/,
    );
    assert.throws(() => compileCustomPattern('x*', 'x', false), /empty string/);
  });

  it('runs a pattern that backtracks exponentially on V8 in linear time', () => {
    const detector = compileCustomPattern('^(a|a)*X$', 'x', false);
    const started = performance.now();
    assert.deepEqual(run(detector, 'a'.repeat(50_000)), []);
    assert.ok(performance.now() - started < 2000);
  });
});

describe('word lists', () => {
  const detector = compileWordList(['Falcon', 'top secret', 'ACME-42'], 'internal');

  it('finds whole words and phrases, case-insensitive', () => {
    assert.deepEqual(run(detector, 'The FALCON files are Top Secret, see acme-42.'), [
      { start: 4, end: 10, type: 'internal' },
      { start: 21, end: 31, type: 'internal' },
      { start: 37, end: 44, type: 'internal' },
    ]);
  });

  it('leaves words that merely contain a listed word alone', () => {
    assert.deepEqual(run(detector, 'falconry, topsecret, acme-421 and xfalcon'), []);
  });
});
