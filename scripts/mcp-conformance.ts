/**
 * Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against surface B's
 * MCP endpoint: starts the site on a free local port (or uses --url), runs each server scenario,
 * and exits non-zero when any of them fails. Needs no network beyond the loopback interface.
 *
 *     node scripts/mcp-conformance.ts                      # start the site and test it
 *     node scripts/mcp-conformance.ts --url http://127.0.0.1:8788/mcp   # test a running server
 *
 * SITE_CONTENT_DIR and IDENTITY_DISCOVERY_FILE are honoured, so custom content can be checked too.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Application, buildApplication } from '../src/app.ts';
import { loadConfig } from '../src/config/load-config.ts';
import { createLogger } from '../src/platform/logger.ts';

const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'] as const;

const conformancePackage = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/conformance/package.json',
);
const CONFORMANCE_CLI = join(dirname(conformancePackage), 'dist', 'index.js');

async function startSite(): Promise<{ app: Application; url: string }> {
  const env: Record<string, string> = {
    SURFACES: 'site',
    DATA_DIR: ':memory:',
    HOST: '127.0.0.1',
    SITE_PORT: '0',
    LOG_LEVEL: 'silent',
  };
  for (const name of ['SITE_CONTENT_DIR', 'IDENTITY_DISCOVERY_FILE']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  const config = loadConfig(env, []);
  const app = await buildApplication(config, createLogger({ level: config.logLevel }));
  if (app.site === undefined) throw new Error('the site surface was not built');
  // 127.0.0.1, not localhost: the dns-rebinding scenario only runs against a loopback URL.
  await app.site.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.site.server.address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}/mcp` };
}

async function runScenario(url: string, scenario: string, outputDir: string): Promise<boolean> {
  const child = spawn(
    process.execPath,
    [CONFORMANCE_CLI, 'server', '--url', url, '--scenario', scenario, '--output-dir', outputDir],
    { stdio: 'inherit' },
  );
  const [code] = (await once(child, 'exit')) as [number | null];
  return code === 0;
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { url: { type: 'string' } } });
  const started = values.url === undefined ? await startSite() : undefined;
  const url = values.url ?? (started as { url: string }).url;
  // The suite writes a results folder per scenario; keep it out of the working tree.
  const outputDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  const failed: string[] = [];
  try {
    for (const scenario of SCENARIOS) {
      if (!(await runScenario(url, scenario, outputDir))) failed.push(scenario);
    }
  } finally {
    await started?.app.close();
    rmSync(outputDir, { recursive: true, force: true });
  }
  if (failed.length > 0) {
    console.error(
      `MCP conformance: ${failed.length} of ${SCENARIOS.length} scenarios failed: ${failed.join(', ')}`,
    );
    return 1;
  }
  console.log(`MCP conformance: all ${SCENARIOS.length} scenarios passed against ${url}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('MCP conformance run failed:', error instanceof Error ? error.message : error);
    process.exit(2);
  },
);
