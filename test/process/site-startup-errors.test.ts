import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError } from '../../src/config/config-error.ts';
import { BUNDLED_CONTENT_DIR } from '../../src/site/content/load-site-content.ts';
import { createTestSchema } from '../helpers/postgres.ts';
import { createSite } from '../helpers/site-harness.ts';

const ROOT = new URL('../../', import.meta.url);
const temporary = mkdtempSync(join(tmpdir(), 'site-startup-'));
after(() => rmSync(temporary, { recursive: true, force: true }));

/**
 * Runs `node src/main.ts` for the site alone and collects its exit status, its stderr, and how long
 * it went on after writing its error (a start-up that leaves something open lingers until the
 * 10 s fallback of main.ts).
 */
async function start(
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string; lingeredMs: number }> {
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      SURFACES: 'site',
      SITE_PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: ':memory:',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  let erredAt = Number.NaN;
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
    if (Number.isNaN(erredAt)) erredAt = performance.now();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, stderr, lingeredMs: performance.now() - erredAt };
}

describe('start-up refuses bad site content and identity files', () => {
  it('a broken page stops the process with status 2 and one line naming SITE_CONTENT_DIR and the file', async () => {
    const dir = join(temporary, 'content');
    cpSync(BUNDLED_CONTENT_DIR, dir, { recursive: true });
    const broken = join(dir, 'pages', 'pricing.md');
    writeFileSync(broken, '---\ntitle: Pricing\nsummary: S\nupdated: soon\nkind: page\n---\nText\n');
    const { code, stderr } = await start({ SITE_CONTENT_DIR: dir });
    assert.equal(code, 2);
    assert.equal(
      stderr.trim(),
      `Invalid configuration: SITE_CONTENT_DIR has a bad file ${broken}: /updated must match pattern "^\\d{4}-\\d{2}-\\d{2}$"`,
    );
  });

  it('a site summary too long for the MCP server card stops the process naming SITE_CONTENT_DIR and /summary', async (t) => {
    const dir = join(temporary, 'content-summary');
    cpSync(BUNDLED_CONTENT_DIR, dir, { recursive: true });
    const file = join(dir, 'site.yaml');
    const yaml = readFileSync(file, 'utf8').replace(/^summary: .*$/m, `summary: ${'Long '.repeat(21)}`);
    writeFileSync(file, yaml);
    // PostgreSQL and Redis connections are open when the content fails: each would hold the process.
    const schema = await createTestSchema();
    t.after(schema.drop);
    const { code, stderr, lingeredMs } = await start({
      SITE_CONTENT_DIR: dir,
      DATABASE_URL: schema.url,
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    });
    assert.equal(code, 2);
    assert.equal(
      stderr.trim(),
      `Invalid configuration: SITE_CONTENT_DIR has a bad file ${file}: /summary must NOT have more than 100 characters`,
    );
    // What start-up opened was closed, so the process ended by itself, well before the fallback.
    assert.ok(lingeredMs < 8_000, `the process went on ${Math.round(lingeredMs)} ms after its error`);
  });

  it('an unusable identity discovery document stops the process naming IDENTITY_DISCOVERY_FILE', async () => {
    const file = join(temporary, 'openid.json');
    writeFileSync(file, JSON.stringify({ issuer: 'http://id.example.com' }));
    const { code, stderr } = await start({ IDENTITY_DISCOVERY_FILE: file });
    assert.equal(code, 2);
    assert.match(
      stderr,
      /^Invalid configuration: IDENTITY_DISCOVERY_FILE is not a usable OpenID discovery document/,
    );
    assert.match(stderr, /issuer must use https/);
    assert.match(stderr, /jwks_uri is required/);
  });

  it('buildSiteApp rejects with the ConfigError, so embedding code sees the same message', async () => {
    await assert.rejects(
      createSite({ env: { IDENTITY_DISCOVERY_FILE: join(temporary, 'missing.json') } }),
      (error) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.setting, 'IDENTITY_DISCOVERY_FILE');
        return true;
      },
    );
  });
});
