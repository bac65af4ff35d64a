import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';

const ROOT = new URL('../../', import.meta.url);

async function runConformance(args: string[] = []): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['scripts/mcp-conformance.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, output };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('the official MCP conformance suite (scripts/mcp-conformance.ts)', () => {
  it('passes server-initialize, ping, tools-list and dns-rebinding-protection against the site', async () => {
    const { code, output } = await runConformance();
    assert.equal(code, 0, output);
    for (const scenario of ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']) {
      assert.ok(output.includes(`Running client scenario '${scenario}'`), scenario);
    }
    assert.equal((output.match(/0 failed/g) ?? []).length, 4, output);
    assert.match(output, /MCP conformance: all 4 scenarios passed/);
  });

  it('exits non-zero when the scenarios fail (here: nothing listens at the URL)', async () => {
    const { code, output } = await runConformance(['--url', `http://127.0.0.1:${await closedPort()}/mcp`]);
    assert.equal(code, 1, output);
    assert.match(output, /4 of 4 scenarios failed/);
  });
});
