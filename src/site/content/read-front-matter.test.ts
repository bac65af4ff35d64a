import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFrontMatter } from './read-front-matter.ts';

describe('readFrontMatter', () => {
  it('splits the YAML front matter from the body', () => {
    const doc = readFrontMatter('---\ntitle: About\nupdated: 2025-01-02\n---\nHello\n\nWorld\n');
    assert.deepEqual(doc.data, { title: 'About', updated: '2025-01-02' });
    assert.equal(doc.body, 'Hello\n\nWorld\n');
  });

  it('accepts CRLF line ends, a byte-order mark and an empty front matter', () => {
    assert.deepEqual(readFrontMatter('\uFEFF---\r\ntitle: A\r\n---\r\nBody').data, { title: 'A' });
    assert.deepEqual(readFrontMatter('---\n---\nBody'), { data: {}, body: 'Body' });
  });

  it('keeps a later "---" line (a Markdown rule) in the body', () => {
    assert.equal(readFrontMatter('---\na: 1\n---\nx\n---\ny').body, 'x\n---\ny');
  });

  it('refuses a file without front matter, an unclosed one, bad YAML and duplicate keys', () => {
    assert.throws(() => readFrontMatter('# Title\n'), /must start with YAML front matter/);
    assert.throws(() => readFrontMatter('---\ntitle: x\n'), /not closed/);
    assert.throws(() => readFrontMatter('---\ntitle: [x\n---\n'), /not valid YAML/);
    assert.throws(() => readFrontMatter('---\ntitle: a\ntitle: b\n---\n'), /not valid YAML/);
  });
});
