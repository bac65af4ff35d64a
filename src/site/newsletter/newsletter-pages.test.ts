import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeHtml, prefersHtml, renderPage } from './newsletter-pages.ts';

describe('newsletter pages', () => {
  it('escapes what it is given', () => {
    assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    const page = renderPage('<script>alert(1)</script>', 'a & b');
    assert.doesNotMatch(page, /<script>/);
    assert.match(page, /a &amp; b/);
  });

  const accepts: [string | undefined, boolean][] = [
    [undefined, false],
    ['*/*', false],
    ['application/json', false],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true],
    ['application/json, text/html;q=0.5', false],
    ['text/html;q=0', false],
    ['TEXT/HTML', true],
    ['text/html;q=abc', false],
  ];
  for (const [accept, html] of accepts) {
    it(`Accept ${JSON.stringify(accept)} gets ${html ? 'HTML' : 'JSON'}`, () => {
      assert.equal(prefersHtml(accept), html);
    });
  }
});
