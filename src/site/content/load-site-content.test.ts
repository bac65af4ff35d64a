import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError } from '../../config/config-error.ts';
import { BUNDLED_CONTENT_DIR, DEFAULT_SUMMARY, loadSiteContent } from './load-site-content.ts';

const URLS = { siteUrl: 'https://www.example.com', gatewayUrl: 'https://api.example.com' };
const temporary: string[] = [];
after(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the bundled sample with some files replaced (or removed, with `null`). */
function sampleWith(files: Record<string, string | null>): string {
  const dir = mkdtempSync(join(tmpdir(), 'site-content-'));
  temporary.push(dir);
  cpSync(BUNDLED_CONTENT_DIR, dir, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    const file = join(dir, path);
    if (text === null) rmSync(file, { recursive: true, force: true });
    else {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
  }
  return dir;
}

function loadError(dir: string): ConfigError {
  try {
    loadSiteContent(dir, URLS);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    assert.equal(error.setting, 'SITE_CONTENT_DIR');
    return error;
  }
  assert.fail('the content loaded');
}

const page = (front: string, body = 'Some text.') => `---\n${front}\n---\n${body}\n`;
const VALID_FRONT = 'title: T\nsummary: S\nupdated: 2025-01-02\nkind: page';

describe('loadSiteContent', () => {
  it('loads the bundled sample: pages before policies, each sorted by slug, addresses filled in', () => {
    const content = loadSiteContent(BUNDLED_CONTENT_DIR, URLS);
    assert.equal(content.overview.name, 'Fieldstone Gateway');
    const slugs = content.pages.map((p) => `${p.kind}:${p.slug}`);
    assert.deepEqual(slugs, [
      'page:about',
      'page:contact',
      'page:docs/getting-started',
      'page:docs/site-api',
      'page:pricing',
      'policy:acceptable-use',
      'policy:cookies',
      'policy:privacy',
      'policy:terms',
    ]);
    const gettingStarted = content.pages.find((p) => p.slug === 'docs/getting-started');
    assert.ok(gettingStarted?.body.includes('https://api.example.com/v1/chat'));
    assert.ok(!content.pages.some((p) => p.body.includes('{{')), 'every placeholder is filled');
    assert.equal(content.overview.apiDocs.gateway, 'https://www.example.com/docs/getting-started');
    assert.deepEqual(
      content.skills.map((s) => [s.name, s.files.map((f) => f.path)]),
      [['inference-gateway', ['SKILL.md', 'references/errors.md']]],
    );
    assert.ok(content.skills[0]?.description.includes('https://api.example.com'));
  });

  it('names the file and the field when front matter is wrong', () => {
    const error = loadError(
      sampleWith({ 'pages/about.md': page('title: T\nsummary: S\nupdated: June 2025\nkind: post') }),
    );
    assert.match(
      error.message,
      /^Invalid configuration: SITE_CONTENT_DIR has a bad file .*pages\/about\.md: /,
    );
    assert.match(error.message, /\/kind must be one of: page, policy/);
    assert.match(error.message, /\/updated must match pattern/);
  });

  it('refuses unknown front matter keys, impossible dates, empty bodies and missing front matter', () => {
    assert.match(
      loadError(sampleWith({ 'pages/x.md': page(`${VALID_FRONT}\nsumary: typo`) })).message,
      /sumary is not an allowed property/,
    );
    assert.match(
      loadError(sampleWith({ 'pages/x.md': page(VALID_FRONT.replace('2025-01-02', '2025-02-30')) })).message,
      /not a calendar date/,
    );
    assert.match(
      loadError(sampleWith({ 'pages/x.md': page(VALID_FRONT, '') })).message,
      /pages\/x\.md: the page has no text/,
    );
    assert.match(
      loadError(sampleWith({ 'pages/x.md': '# Just markdown\n' })).message,
      /pages\/x\.md: must start with YAML front matter/,
    );
  });

  it('refuses slugs that are not URL-safe or that collide with site API paths', () => {
    assert.match(
      loadError(sampleWith({ 'pages/About Us.md': page(VALID_FRONT) })).message,
      /About Us\.md: file name must be lowercase/,
    );
    assert.match(
      loadError(sampleWith({ 'pages/api/status.md': page(VALID_FRONT) })).message,
      /slug 'api\/status' is reserved/,
    );
  });

  describe('summary (the MCP server card description, 1-100 characters)', () => {
    const siteYaml = (extra: string, description = 'D') =>
      `name: X\ndescription: ${description}\nsections: []\n${extra}`;
    const summaryOf = (yaml: string) =>
      loadSiteContent(sampleWith({ 'site.yaml': yaml }), URLS).overview.summary;

    it('is the summary of site.yaml when given, up to 100 characters', () => {
      assert.equal(summaryOf(siteYaml(`summary: ${'s'.repeat(100)}\n`)), 's'.repeat(100));
      const bundled = loadSiteContent(BUNDLED_CONTENT_DIR, URLS).overview;
      assert.ok(bundled.summary.length <= 100 && bundled.summary.length > 0);
      assert.ok(bundled.description.length > 100, 'the bundled description alone would not fit');
    });

    it('refuses a longer or blank summary at start-up, naming SITE_CONTENT_DIR, site.yaml and /summary', () => {
      assert.match(
        loadError(sampleWith({ 'site.yaml': siteYaml(`summary: ${'s'.repeat(101)}\n`) })).message,
        /site\.yaml: \/summary must NOT have more than 100 characters/,
      );
      assert.match(loadError(sampleWith({ 'site.yaml': siteYaml("summary: '   '\n") })).message, /\/summary/);
    });

    it('without one, is the description when that fits, else a short default (never a cut sentence)', () => {
      assert.equal(summaryOf(siteYaml('', 'd'.repeat(100))), 'd'.repeat(100));
      assert.equal(summaryOf(siteYaml('', 'd'.repeat(101))), DEFAULT_SUMMARY);
      assert.ok(DEFAULT_SUMMARY.length <= 100);
    });
  });

  it('checks the overview: YAML, shape, sections naming real pages, docs links', () => {
    assert.match(loadError(sampleWith({ 'site.yaml': null })).message, /site\.yaml: is missing/);
    assert.match(
      loadError(sampleWith({ 'site.yaml': 'name: [x' })).message,
      /site\.yaml: cannot be read as YAML/,
    );
    assert.match(
      loadError(sampleWith({ 'site.yaml': 'name: X\nsections: []\n' })).message,
      /must have required property 'description'/,
    );
    assert.match(
      loadError(
        sampleWith({
          'site.yaml': 'name: X\ndescription: D\nsections: [{id: a, title: A, pages: [nope]}]\n',
        }),
      ).message,
      /\/sections\/0\/pages names 'nope', which is not a page/,
    );
    assert.match(
      loadError(
        sampleWith({ 'site.yaml': 'name: X\ndescription: D\nsections: []\napiDocs: {gateway: nowhere}\n' }),
      ).message,
      /\/apiDocs\/gateway 'nowhere' is neither a page slug nor an absolute http\(s\) URL/,
    );
  });

  it('refuses two policies with the same title (lookup_policy matches titles)', () => {
    const dir = sampleWith({
      'pages/privacy-2.md': page('title: privacy policy\nsummary: S\nupdated: 2025-01-02\nkind: policy'),
    });
    assert.match(loadError(dir).message, /policy title 'privacy policy' is also used by 'privacy'/);
  });

  it('checks agent skills: SKILL.md present, its name equal to the directory name', () => {
    assert.match(
      loadError(sampleWith({ 'agent-skills/inference-gateway/SKILL.md': null })).message,
      /inference-gateway: a skill directory must contain SKILL\.md/,
    );
    const renamed = sampleWith({
      'agent-skills/other/SKILL.md': '---\nname: inference-gateway\ndescription: D\n---\nBody\n',
    });
    assert.match(
      loadError(renamed).message,
      /other\/SKILL\.md: \/name 'inference-gateway' must equal the directory name 'other'/,
    );
  });

  it('refuses a missing directory with a message naming it', () => {
    assert.match(
      loadError('/nonexistent/site-content').message,
      /SITE_CONTENT_DIR is not a directory: \/nonexistent/,
    );
  });
});
