import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError } from '../../src/config/config-error.ts';
import { BUNDLED_CONTENT_DIR } from '../../src/site/content/load-site-content.ts';
import { createSite } from '../helpers/site-harness.ts';

const ROOT = new URL('../../', import.meta.url);
const temporary = mkdtempSync(join(tmpdir(), 'site-startup-'));
after(() => rmSync(temporary, { recursive: true, force: true }));

/** Runs `node src/main.ts` for the site alone and collects its exit status and stderr. */
async function start(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
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
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, stderr };
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

  it('a site summary too long for the MCP server card stops the process naming SITE_CONTENT_DIR and /summary', async () => {
    const dir = join(temporary, 'content-summary');
    cpSync(BUNDLED_CONTENT_DIR, dir, { recursive: true });
    const file = join(dir, 'site.yaml');
    const yaml = readFileSync(file, 'utf8').replace(/^summary: .*$/m, `summary: ${'Long '.repeat(21)}`);
    writeFileSync(file, yaml);
    const { code, stderr } = await start({ SITE_CONTENT_DIR: dir });
    assert.equal(code, 2);
    assert.equal(
      stderr.trim(),
      `Invalid configuration: SITE_CONTENT_DIR has a bad file ${file}: /summary must NOT have more than 100 characters`,
    );
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
