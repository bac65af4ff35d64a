import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { parse } from 'yaml';
import { postMcp, rpc } from '../helpers/mcp-http.ts';
import { readTarGz } from '../helpers/read-tar-gz.ts';
import { SITE_URL, shareSite } from '../helpers/site-harness.ts';

const GATEWAY_URL = 'https://gateway.example.test';
const CATALOG_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';
const CATALOG_LINK = `<${SITE_URL}/.well-known/api-catalog>; rel="api-catalog"`;
const DOCUMENTS = [
  '/openapi.json',
  '/.well-known/openapi.json',
  '/.well-known/api-catalog',
  '/.well-known/agent-skills/index.json',
  '/.well-known/mcp/server-card.json',
];

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

describe('discovery documents of surface B', () => {
  const h = shareSite({ env: { PUBLIC_GATEWAY_URL: GATEWAY_URL } });
  const get = (url: string, headers: Record<string, string> = {}) => h.get(url, { headers });

  describe('caching, CORS and HEAD, on every document', () => {
    for (const url of DOCUMENTS) {
      it(`${url}: strong ETag, public caching, CORS for any origin; 304 on a matching If-None-Match`, async () => {
        const res = await get(url);
        assert.equal(res.status, 200);
        const etag = String(res.headers.etag);
        assert.equal(etag, `"${createHash('sha256').update(res.raw).digest('base64url')}"`);
        assert.equal(res.headers['cache-control'], 'public, max-age=300');
        assert.equal(res.headers['access-control-allow-origin'], '*');
        assert.match(String(res.headers['access-control-expose-headers']), /ETag/);

        const again = await get(url, { 'if-none-match': etag });
        assert.equal(again.status, 304);
        assert.equal(again.text, '');
        assert.equal(again.headers.etag, etag);
        assert.equal((await get(url, { 'if-none-match': `W/${etag}` })).status, 304, 'weak comparison');
        assert.equal((await get(url, { 'if-none-match': '"stale"' })).status, 200);

        const head = await h.head(url);
        assert.equal(head.status, 200);
        assert.equal(head.text, '');
        assert.equal(head.headers.etag, etag);
        assert.equal(head.headers['content-type'], res.headers['content-type']);
      });
    }
  });

  describe('/openapi.json and /.well-known/openapi.json', () => {
    let doc: any;
    before(async () => {
      doc = (await get('/openapi.json')).body;
    });

    it('are the same valid OpenAPI 3.1 document, with the public site URL as server', async () => {
      assert.deepEqual((await get('/.well-known/openapi.json')).body, doc);
      assert.equal(doc.openapi, '3.1.0');
      assert.deepEqual(doc.servers, [{ url: SITE_URL }]);
      await SwaggerParser.validate(structuredClone(doc));
    });

    it('describes the MCP and discovery operations, each with an operationId and responses', () => {
      const operations = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
        Object.entries<any>(item).map(([method, operation]) => ({ path, method, operation })),
      );
      const expected = [
        'post /mcp',
        'get /mcp',
        'delete /mcp',
        'get /.well-known/api-catalog',
        'get /.well-known/agent-skills/index.json',
        'get /.well-known/agent-skills/{name}/SKILL.md',
        'get /.well-known/mcp/server-card.json',
        'get /.well-known/openid-configuration',
        'get /.well-known/oauth-authorization-server',
        'get /.well-known/oauth-protected-resource',
      ];
      const present = operations.map(({ path, method }) => `${method} ${path}`);
      for (const operation of expected) assert.ok(present.includes(operation), operation);
      const ids = operations.map(({ operation }) => operation.operationId);
      assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
      for (const { path, method, operation } of operations.filter(
        (o) => o.path.startsWith('/.well-known') || o.path === '/mcp',
      )) {
        assert.equal(typeof operation.operationId, 'string', `${method} ${path}`);
        assert.equal(typeof operation.summary, 'string', `${method} ${path}`);
        assert.ok(Object.keys(operation.responses).length > 0, `${method} ${path}`);
      }
      assert.ok(doc.paths['/mcp'].post.responses['403']);
      assert.equal(doc.paths['/openapi.json'], undefined, 'the document does not list itself');
      assert.equal(doc.paths['/privacy'], undefined, 'content pages are not API operations');
    });

    it('links to the API catalog', async () => {
      assert.equal((await get('/openapi.json')).headers.link, CATALOG_LINK);
    });
  });

  describe('/.well-known/api-catalog (RFC 9727)', () => {
    it('is a linkset with the RFC 9727 profile, listing both APIs with OpenAPI, docs and status links', async () => {
      const res = await get('/.well-known/api-catalog');
      assert.equal(res.headers['content-type'], CATALOG_TYPE);
      assert.equal(res.headers.link, CATALOG_LINK);
      const { linkset } = res.body;
      assert.deepEqual(linkset[0], {
        anchor: `${SITE_URL}/.well-known/api-catalog`,
        item: [
          { href: GATEWAY_URL, title: 'Inference Gateway API' },
          { href: SITE_URL, title: 'Public Site API' },
        ],
      });
      const gateway = linkset.find((entry: any) => entry.anchor === GATEWAY_URL);
      assert.deepEqual(gateway['service-desc'], [
        {
          href: `${GATEWAY_URL}/openapi.json`,
          type: 'application/openapi+json',
          title: 'Inference Gateway API (OpenAPI 3.1)',
        },
      ]);
      assert.equal(gateway['service-doc'][0].href, `${SITE_URL}/docs/getting-started`);
      assert.deepEqual(gateway.status, [{ href: `${GATEWAY_URL}/health`, type: 'application/json' }]);
      const site = linkset.find((entry: any) => entry.anchor === SITE_URL);
      assert.equal(site['service-desc'][0].href, `${SITE_URL}/openapi.json`);
      assert.equal(site['service-doc'][0].href, `${SITE_URL}/docs/site-api`);
      assert.deepEqual(site.status, [{ href: `${SITE_URL}/api/health`, type: 'application/health+json' }]);
    });

    it('answers HEAD with the Link header (RFC 9727 §2)', async () => {
      const head = await h.head('/.well-known/api-catalog');
      assert.equal(head.status, 200);
      assert.equal(head.headers.link, CATALOG_LINK);
      assert.equal(head.headers['content-type'], CATALOG_TYPE);
    });

    it('agrees with the lookup_api_catalog tool (one source)', async () => {
      const { linkset } = (await get('/.well-known/api-catalog')).body;
      const call = await postMcp(h.site, rpc('tools/call', { name: 'lookup_api_catalog', arguments: {} }));
      const { apis } = call.json().result.structuredContent;
      for (const api of apis) {
        const entry = linkset.find((candidate: any) => candidate.anchor === api.baseUrl);
        assert.equal(entry['service-desc'][0].href, api.openapiUrl);
        assert.equal(entry['service-doc'][0].href, api.docsUrl);
        assert.equal(entry.status[0].href, api.statusUrl);
      }
    });
  });

  describe('/.well-known/agent-skills (Agent Skills Discovery 0.2.0)', () => {
    const INDEX_URL = `${SITE_URL}/.well-known/agent-skills/index.json`;
    /** Fetches an entry's artifact at its url, resolved against the index URL as the specification says. */
    const fetchArtifact = (url: string) => get(new URL(url, INDEX_URL).pathname);

    it('has the $schema form, and each digest is the SHA-256 of the bytes served at its url', async () => {
      const index = (await get('/.well-known/agent-skills/index.json')).body;
      assert.equal(index.$schema, 'https://schemas.agentskills.io/discovery/0.2.0/schema.json');
      assert.equal(index.version, undefined, "the earlier text's fields are gone");
      assert.deepEqual(
        index.skills.map((skill: any) => [skill.name, skill.type]),
        [['inference-gateway', 'archive']],
        'the bundled skill has a supporting file, so it is published as an archive',
      );
      for (const skill of index.skills) {
        assert.deepEqual(Object.keys(skill).sort(), ['description', 'digest', 'name', 'type', 'url']);
        assert.match(skill.digest, /^sha256:[0-9a-f]{64}$/);
        const res = await fetchArtifact(skill.url);
        assert.equal(res.status, 200, skill.url);
        assert.equal(res.headers['content-type'], 'application/gzip');
        assert.equal(skill.digest, `sha256:${sha256(res.raw)}`);
      }
    });

    it('archives the skill directory: SKILL.md at the root, with the index name, and the files served one by one', async () => {
      const index = (await get('/.well-known/agent-skills/index.json')).body;
      const [skill] = index.skills;
      const archive = (await fetchArtifact(skill.url)).raw;
      const files = readTarGz(archive);
      assert.deepEqual([...files.keys()], ['SKILL.md', 'references/errors.md']);
      for (const [path, bytes] of files) {
        const res = await get(`/.well-known/agent-skills/${skill.name}/${path}`);
        assert.equal(res.status, 200, path);
        assert.equal(res.headers['content-type'], 'text/markdown; charset=utf-8');
        assert.ok(res.raw.equals(bytes), `${path} in the archive is the file served`);
      }
      const front = parse(
        files
          .get('SKILL.md')
          ?.toString('utf8')
          .split('\n---\n')[0]
          ?.replace(/^---\n/, '') ?? '',
      );
      assert.equal(front.name, skill.name);
      assert.equal(front.description, skill.description);
    });

    it('serves a SKILL.md whose front matter names the skill and which points at the configured gateway', async () => {
      const text = (await get('/.well-known/agent-skills/inference-gateway/SKILL.md')).text;
      const front = parse(text.split('\n---\n')[0]?.replace(/^---\n/, '') ?? '');
      assert.equal(front.name, 'inference-gateway');
      assert.ok(front.description.length <= 1024);
      for (const fact of [
        `${GATEWAY_URL}/openapi.json`,
        'x-gateway-app',
        'x-gateway-secret',
        'event',
        'Retry-After',
      ]) {
        assert.ok(text.includes(fact), fact);
      }
      assert.ok(!text.includes('{{'), 'placeholders are filled');
    });

    it('answers 404 with the envelope for a skill, file or archive that does not exist', async () => {
      for (const url of [
        '/.well-known/agent-skills/nope/SKILL.md',
        '/.well-known/agent-skills/nope.tar.gz',
        '/.well-known/agent-skills/inference-gateway/../../x',
      ]) {
        const res = await get(url);
        assert.equal(res.status, 404, url);
        assert.equal(res.body.error.code, 'not_found');
      }
    });
  });

  describe('/.well-known/mcp/server-card.json (SEP-2127 draft)', () => {
    it('describes the streamable HTTP remote, the revisions, and exactly the tools of tools/list', async () => {
      const card = (await get('/.well-known/mcp/server-card.json')).body;
      assert.equal(card.$schema, 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json');
      assert.equal(card.name, 'test.example.www/site');
      assert.equal(card.title, 'Fieldstone Gateway');
      const summary = parse(
        readFileSync(new URL('../../site-content/site.yaml', import.meta.url), 'utf8'),
      ).summary;
      assert.equal(card.description, summary, "site.yaml's summary, not its long description");
      assert.ok(card.description.length >= 1 && card.description.length <= 100, card.description);
      assert.equal(card.version, '1.0.0');
      assert.equal(card.websiteUrl, SITE_URL);
      assert.equal(card.remotes.length, 1);
      assert.equal(card.remotes[0].type, 'streamable-http');
      assert.equal(card.remotes[0].url, `${SITE_URL}/mcp`);
      assert.deepEqual(card.remotes[0].authentication, { required: false, schemes: [] });
      for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
        assert.ok(card.remotes[0].supportedProtocolVersions.includes(version), version);
      }
      assert.deepEqual(card.capabilities, { tools: { listChanged: false } });
      const listed = (await postMcp(h.site, rpc('tools/list'))).json().result.tools;
      assert.deepEqual(card.tools, listed);
    });

    it('is also served at the path the draft now proposes', async () => {
      assert.equal(
        (await get('/.well-known/mcp/server-card')).text,
        (await get('/.well-known/mcp/server-card.json')).text,
      );
    });
  });

  describe('content pages', () => {
    it('serves each page at the URL the tools give out, as Markdown with its title', async () => {
      const res = await get('/docs/getting-started');
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'text/markdown; charset=utf-8');
      assert.match(res.text, /^# Getting started with the gateway API\n\n/);
      assert.ok(res.text.includes(`${GATEWAY_URL}/v1/chat`), 'the configured gateway URL is filled in');
      assert.equal(res.headers['last-modified'], 'Mon, 02 Jun 2025 00:00:00 GMT');
      assert.equal((await get('/privacy', { 'if-none-match': String(res.headers.etag) })).status, 200);
      assert.equal(
        (await get('/docs/getting-started', { 'if-none-match': String(res.headers.etag) })).status,
        304,
      );
    });

    it('leaves unknown paths and methods to the 404 and 405 envelope', async () => {
      assert.equal((await get('/no-such-page')).body.error.code, 'not_found');
      const post = await h.request({ method: 'POST', url: '/privacy' });
      assert.equal(post.status, 405);
      assert.equal(post.body.error.code, 'method_not_allowed');
    });
  });
});

describe('agent skills: a skill that is SKILL.md alone is a skill-md entry', () => {
  let contentDir: string;
  const SKILL_MD = '---\nname: single-file\ndescription: A skill of one file.\n---\n# Single\n';
  before(() => {
    contentDir = mkdtempSync(join(tmpdir(), 'skills-content-'));
    cpSync(new URL('../../site-content/', import.meta.url), contentDir, { recursive: true });
    mkdirSync(join(contentDir, 'agent-skills', 'single-file'));
    writeFileSync(join(contentDir, 'agent-skills', 'single-file', 'SKILL.md'), SKILL_MD);
  });
  const h = shareSite(() => ({ env: { SITE_CONTENT_DIR: contentDir } }));
  // Declared after the site's own after hook: the site closes before its content is removed.
  after(() => rmSync(contentDir, { recursive: true, force: true }));

  it('points its url at SKILL.md, served as text/markdown, front matter first, digest of the served bytes', async () => {
    const indexUrl = `${SITE_URL}/.well-known/agent-skills/index.json`;
    const index = (await h.get('/.well-known/agent-skills/index.json')).body;
    assert.deepEqual(
      index.skills.map((skill: any) => [skill.name, skill.type]),
      [
        ['inference-gateway', 'archive'],
        ['single-file', 'skill-md'],
      ],
    );
    const skill = index.skills[1];
    assert.equal(
      new URL(skill.url, indexUrl).href,
      `${SITE_URL}/.well-known/agent-skills/single-file/SKILL.md`,
    );
    const res = await h.get(new URL(skill.url, indexUrl).pathname);
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/markdown/);
    assert.ok(res.text.startsWith('---\n'), 'YAML front matter first');
    assert.equal(parse(res.text.split('\n---\n')[0]?.replace(/^---\n/, '') ?? '').name, skill.name);
    assert.equal(res.text, SKILL_MD);
    assert.equal(skill.digest, `sha256:${sha256(res.raw)}`);
  });
});
