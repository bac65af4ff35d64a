import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openSqliteStorage } from '../../src/storage/embedded/sqlite-storage.ts';
import { spawnServer } from '../helpers/spawn-server.ts';

/**
 * `npm start` under a supervisor (a container runtime, systemd, a process manager whose command
 * is `npm start`): the stop signal goes to npm alone, not to its process group. npm 11 forwards
 * SIGTERM and SIGINT to the shell it runs the script in; the script `exec`s node, so that shell
 * is node, which drains: the request in flight is answered and leaves its ledger row, and the
 * gateway exits, then npm. Without `exec` the shell died and node went on serving with parent 1.
 */
const SECRET = 'signals-secret-0123456789';

// With several workers (CONTRACT 6.8) the signal reaches their primary, which drains every one of them.
const CASES = [
  ['SIGTERM', '1'],
  ['SIGINT', '1'],
  ['SIGTERM', '2'],
] as const;

for (const [signal, workers] of CASES) {
  describe(`npm start with ${workers} worker(s), ${signal} sent to npm alone`, () => {
    it('reaches the gateway, which finishes the request in flight with its row and exits', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'npm-signals-'));
      const npm = process.env.npm_execpath;
      const command = npm === undefined ? ['npm', 'start'] : [process.execPath, npm, 'start'];
      const server = await spawnServer(
        {
          DATA_DIR: dataDir,
          GATEWAY_APPS: `signals:${SECRET}`,
          SURFACES: 'gateway',
          GATEWAY_WORKERS: workers,
        },
        1,
        command,
      );
      let nodePid: number | undefined;
      try {
        const listening = server.output.find((line) => line.includes('gateway (surface A) listening'));
        nodePid = (JSON.parse(listening as string) as { pid: number }).pid;
        assert.notEqual(nodePid, server.child.pid, 'npm runs the gateway in a process of its own');
        const answer = await fetch(`http://127.0.0.1:${server.gatewayPort}/v1/chat`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-gateway-app': 'signals',
            'x-gateway-secret': SECRET,
          },
          body: JSON.stringify({
            messages: [{ role: 'user', content: 'still there?' }],
            stream: true,
            metadata: {
              simulated: { reply: 'one two three four five six seven eight nine ten', chunkDelayMs: 150 },
            },
          }),
        });
        assert.equal(answer.status, 200);
        const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
        const decoder = new TextDecoder();
        // The stream has begun (its `start` event is in): the request is in flight when npm is signalled.
        let text = decoder.decode((await reader.read()).value, { stream: true });
        const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
        process.kill(server.child.pid as number, signal);
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
          text += decoder.decode(chunk.value, { stream: true });
        assert.match(text, /^event: start/);
        const done = /event: done\ndata: (.*)\n/.exec(text);
        assert.ok(done !== null, `the stream ended with done:\n${text}`);
        const { id } = JSON.parse(done[1] as string) as { id: string };
        assert.equal(await exited, 0, `npm's exit status\n${server.output.join('\n')}`);
        assert.match(server.output.join('\n'), /shutdown complete/);
        // Every process that logged (the gateway, or the primary and its workers) is gone, none left with parent 1.
        for (const pid of loggedPids(server.output))
          assert.ok(!existsSync(`/proc/${pid}`), `process ${pid} is gone`);
        const storage = openSqliteStorage(dataDir);
        const rows = await storage.usage.readRecords({ app: 'signals', limit: 10 });
        await storage.close();
        assert.deepEqual(
          rows.map((row) => [row.id, row.status]),
          [[id, 200]],
        );
      } finally {
        // Whatever happened, nothing of the group outlives the test.
        try {
          process.kill(-(server.child.pid as number), 'SIGKILL');
        } catch {}
        for (const pid of loggedPids(server.output))
          if (existsSync(`/proc/${pid}`)) process.kill(pid, 'SIGKILL');
      }
    });
  });
}

/** The pid of every JSON log line: the gateway's, or the primary's and its workers'. */
function loggedPids(output: readonly string[]): Set<number> {
  const pids = new Set<number>();
  for (const line of output) {
    if (!line.startsWith('{')) continue;
    try {
      const pid = (JSON.parse(line) as { pid?: unknown }).pid;
      if (typeof pid === 'number') pids.add(pid);
    } catch {
      // not a log line
    }
  }
  return pids;
}
