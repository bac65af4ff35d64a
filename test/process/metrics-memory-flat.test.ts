import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { type RunningServer, spawnServer } from '../helpers/spawn-server.ts';

/** Distinct names sent after the warm-up; METRICS_NAMES=20000 gives the measurement. */
const NAMES = Number(process.env.METRICS_NAMES ?? '3000');
const WARM_UP = 500;
const CONNECTIONS = 16;
const SECRET = 'metrics-bounded-secret-0123456789';

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
}

describe('/metrics and RSS under many thousand invented model, task and route names', () => {
  let server: RunningServer;
  let origin: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'metrics-bounded-'));
  const agent = new Agent({ connections: CONNECTIONS });
  before(async () => {
    server = await spawnServer({ DATA_DIR: dataDir, GATEWAY_APPS: `web:${SECRET}` });
    origin = `http://127.0.0.1:${server.gatewayPort}`;
  });
  after(async () => {
    await agent.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await request(`${origin}${path}`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', authorization: `Bearer web:${SECRET}`, ...headers },
      body: JSON.stringify(body),
    });
    await res.body.dump();
    return res.statusCode;
  };
  /** One request per name, in turn through each door: native model, native task, OpenAI, Anthropic. */
  const sendNames = async (count: number) => {
    let next = 0;
    const messages = [{ role: 'user', content: 'hi' }];
    const statuses = new Map<number, number>();
    const loop = async () => {
      while (next < count) {
        const n = next++;
        const name = `invented-${randomBytes(8).toString('hex')}`;
        const status = await [
          () => post('/v1/chat', { messages, model: name }),
          () => post('/v1/chat', { messages, task: name }),
          () => post('/v1/chat/completions', { model: name, messages }),
          () =>
            post(
              '/v1/messages',
              { model: name, max_tokens: 5, messages },
              { 'anthropic-version': '2023-06-01' },
            ),
        ][n % 4]?.();
        if (status !== undefined) statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, loop));
    return statuses;
  };
  const scrape = async () => {
    const res = await request(`${origin}/metrics`, { dispatcher: agent });
    const text = await res.body.text();
    return {
      bytes: text.length,
      lines: text.split('\n').filter((line) => /^(gateway_|gen_ai_)/.test(line)).length,
      heapMiB: Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1]) / 2 ** 20,
    };
  };

  it('keeps the gateway’s series and the process’s RSS flat', async (t) => {
    assert.deepEqual([...(await sendNames(WARM_UP))], [[200, WARM_UP]]);
    const warm = { metrics: await scrape(), rss: rssMiB(server.child.pid as number) };
    const half = await sendNames(NAMES / 2);
    const middle = { metrics: await scrape(), rss: rssMiB(server.child.pid as number) };
    const statuses = await sendNames(NAMES / 2);
    const end = { metrics: await scrape(), rss: rssMiB(server.child.pid as number) };
    const describe = (names: number, at: typeof end) =>
      `after ${names} names: ${at.metrics.lines} lines, ${at.metrics.bytes} bytes, heap used ${at.metrics.heapMiB.toFixed(0)} MiB, RSS ${at.rss.toFixed(0)} MiB`;
    t.diagnostic(
      [describe(WARM_UP, warm), describe(WARM_UP + NAMES / 2, middle), describe(WARM_UP + NAMES, end)].join(
        '; ',
      ),
    );
    assert.deepEqual([...half], [[200, NAMES / 2]]);
    assert.deepEqual([...statuses], [[200, NAMES / 2]]);
    assert.equal(end.metrics.lines, warm.metrics.lines);
    // Counter values grow a digit or two; the series do not.
    assert.ok(
      end.metrics.bytes < warm.metrics.bytes * 1.05,
      `${warm.metrics.bytes} then ${end.metrics.bytes} bytes`,
    );
    // The heap grows to its working size in the first half; the second half must add no more.
    assert.ok(
      end.metrics.heapMiB - middle.metrics.heapMiB < 20,
      `heap ${middle.metrics.heapMiB.toFixed(0)} then ${end.metrics.heapMiB.toFixed(0)} MiB`,
    );
    assert.ok(end.rss - middle.rss < 40, `RSS ${middle.rss.toFixed(0)} then ${end.rss.toFixed(0)} MiB`);
  });
});
