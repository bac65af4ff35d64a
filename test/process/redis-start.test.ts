import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startRedisRelay } from '../helpers/redis-relay.ts';

const ROOT = new URL('../../', import.meta.url);
const PASSWORD = 'hunter2';

/** A port nothing listens on: bound by us, then released. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts the server as `npm start` would and gives up on it after `limitMs`. */
async function startServer(redisUrl: string, limitMs: number) {
  const started = performance.now();
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'redis-start-')),
      REDIS_URL: redisUrl,
      GATEWAY_PORT: '0',
      SITE_PORT: '0',
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const killer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  const [code, signal] = await once(child, 'exit');
  clearTimeout(killer);
  return {
    code: code as number | null,
    signal: signal as string | null,
    output,
    ms: performance.now() - started,
  };
}

describe('Redis unreachable at start', () => {
  const relay = startRedisRelay();
  after(async () => (await relay).close());

  it('refused: exits non-zero within 10 s naming REDIS_URL, host and port, never the password', async () => {
    const port = await closedPort();
    const result = await startServer(`redis://:${PASSWORD}@127.0.0.1:${port}`, 15_000);
    assert.equal(result.signal, null, `killed after ${Math.round(result.ms)} ms:\n${result.output}`);
    assert.notEqual(result.code, 0);
    assert.ok(result.ms < 10_000, `exited after ${Math.round(result.ms)} ms`);
    assert.match(result.output, /REDIS_URL/);
    assert.ok(result.output.includes(`127.0.0.1:${port}`), result.output);
    assert.ok(!result.output.includes(PASSWORD), result.output);
  });

  it('blackholed (connection accepted, no answer): exits non-zero within 10 s naming REDIS_URL', async () => {
    const blackhole = await relay;
    await blackhole.cut('blackhole');
    const result = await startServer(blackhole.url(`:${PASSWORD}`), 15_000);
    await blackhole.restore();
    assert.equal(result.signal, null, `killed after ${Math.round(result.ms)} ms:\n${result.output}`);
    assert.notEqual(result.code, 0);
    assert.ok(result.ms < 10_000, `exited after ${Math.round(result.ms)} ms`);
    assert.match(result.output, /REDIS_URL/);
    assert.ok(result.output.includes(`127.0.0.1:${blackhole.port}`), result.output);
    assert.ok(!result.output.includes(PASSWORD), result.output);
  });
});
