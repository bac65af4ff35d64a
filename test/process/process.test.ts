import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openSqliteStorage } from '../../src/storage/embedded/sqlite-storage.ts';
import { runNode, spawnServer } from '../helpers/spawn-server.ts';

const SECRET = 'process-test-secret-value';

describe('the server process', () => {
  it('stops within seconds with status 2 and one message naming a bad setting', async () => {
    const started = Date.now();
    const { code, stderr, stdout } = await runNode(['src/main.ts'], { GATEWAY_PORT: 'abc' });
    assert.equal(code, 2);
    assert.match(stderr, /^Invalid configuration: GATEWAY_PORT must be a whole number/);
    assert.equal(stdout, '');
    assert.ok(Date.now() - started < 10_000);
  });

  it('does not leak a provider key in a configuration error', async () => {
    const { code, stderr } = await runNode(['src/main.ts'], {
      PROVIDER_A_KIND: 'openai',
      PROVIDER_A_API_KEY: 'sk-leak-me',
      PROVIDER_A_BASE_URL: 'ftp://x',
    });
    assert.equal(code, 2);
    assert.doesNotMatch(stderr, /sk-leak-me/);
  });

  it('serves both surfaces, finishes in-flight requests on SIGTERM, flushes the ledger, keeps secrets out of logs', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'proc-'));
    const server = await spawnServer({ DATA_DIR: dataDir, GATEWAY_APPS: `proc:${SECRET}` });
    const base = `http://127.0.0.1:${server.gatewayPort}`;
    const headers = {
      'content-type': 'application/json',
      'x-gateway-app': 'proc',
      'x-gateway-secret': SECRET,
    };
    const up = await fetch(`http://127.0.0.1:${server.sitePort}/up`);
    assert.equal(up.status, 200);

    const slow = fetch(`${base}/v1/chat`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        messages: [{ role: 'user', content: 'slow' }],
        metadata: { simulated: { latencyMs: 700 } },
      }),
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const code = server.stop('SIGTERM');
    const response = await slow;
    assert.equal(response.status, 200, 'the in-flight request completes');
    const body = (await response.json()) as {
      id: string;
      usage: { tokensIn: number; estimatedCost: number };
    };
    assert.equal(await code, 0);

    const storage = openSqliteStorage(dataDir);
    const rows = await storage.usage.readRecords({ limit: 10 });
    await storage.close();
    const row = rows.find((r) => r.id === body.id);
    assert.ok(row, 'the ledger row was flushed before exit');
    assert.equal(row.tokensIn, body.usage.tokensIn);
    assert.equal(row.costUsd, body.usage.estimatedCost);

    const log = server.output.join('\n');
    assert.doesNotMatch(log, new RegExp(SECRET));
    assert.match(log, /shutdown complete/);
  });

  it('creates a demo app on first start, with its secret in a private file', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'demo-'));
    const server = await spawnServer({ DATA_DIR: dataDir }, 2);
    const { readFileSync, statSync } = await import('node:fs');
    const file = join(dataDir, 'demo-app.secret');
    const secret = readFileSync(file, 'utf8').trim();
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const res = await fetch(`http://127.0.0.1:${server.gatewayPort}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-app': 'demo', 'x-gateway-secret': secret },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hello' }] }),
    });
    assert.equal(res.status, 200);
    assert.doesNotMatch(server.output.join('\n'), new RegExp(secret));
    assert.equal(await server.stop(), 0);
  });

  it('npm start builds dist/, runs it with the memory settings, serves both surfaces and stops on SIGTERM', async () => {
    // The front door as users open it: npm's own command line, whichever npm runs this suite.
    const npm = process.env.npm_execpath;
    const command = npm === undefined ? ['npm', 'start'] : [process.execPath, npm, 'start'];
    const server = await spawnServer({ DATA_DIR: mkdtempSync(join(tmpdir(), 'npm-start-')) }, 2, command);
    try {
      const health = await fetch(`http://127.0.0.1:${server.gatewayPort}/health`);
      assert.equal(health.status, 200);
      assert.equal((await fetch(`http://127.0.0.1:${server.sitePort}/up`)).status, 200);

      const listening = server.output.find((line) => line.includes('gateway (surface A) listening'));
      const { pid } = JSON.parse(listening as string) as { pid: number };
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      assert.ok(commandLine.includes('dist/main.js'), commandLine.join(' '));
      assert.ok(commandLine.includes('--max-semi-space-size=16'), commandLine.join(' '));
      const environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      assert.ok(environment.includes('MALLOC_ARENA_MAX=2'));
    } finally {
      await server.stop('SIGTERM');
    }
    // npm may exit before node has written its last line: wait for it.
    const shutDown = () => server.output.some((line) => line.includes('shutdown complete'));
    for (const deadline = Date.now() + 10_000; !shutDown() && Date.now() < deadline; )
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.match(server.output.join('\n'), /shutdown complete/);
  });

  it('runs one surface alone with --surface', async () => {
    const server = await spawnServer({ DATA_DIR: ':memory:', SURFACES: 'site' }, 1);
    assert.equal(server.gatewayPort, undefined);
    assert.ok(server.sitePort);
    assert.equal(await server.stop(), 0);
  });
});

describe('npm run apps (CLI)', () => {
  it('creates, lists, rotates and revokes apps in the embedded store', async () => {
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'cli-')) };
    const created = await runNode(['src/cli/apps.ts', 'create', 'billing'], env);
    assert.equal(created.code, 0, created.stderr);
    const secret = /secret: (\S+)/.exec(created.stdout)?.[1];
    assert.match(secret ?? '', /^gws_/);
    const duplicate = await runNode(['src/cli/apps.ts', 'create', 'billing'], env);
    assert.equal(duplicate.code, 1);
    assert.match(duplicate.stderr, /already exists/);

    const rotated = await runNode(['src/cli/apps.ts', 'rotate', 'billing'], env);
    const newSecret = /secret: (\S+)/.exec(rotated.stdout)?.[1];
    assert.ok(newSecret && newSecret !== secret);

    assert.equal((await runNode(['src/cli/apps.ts', 'revoke', 'billing'], env)).code, 0);
    const listed = await runNode(['src/cli/apps.ts', 'list'], env);
    assert.match(listed.stdout, /^billing\trevoked/m);
    assert.doesNotMatch(listed.stdout, /gws_/);
    assert.equal((await runNode(['src/cli/apps.ts', 'revoke', 'nobody'], env)).code, 1);
  });
});
