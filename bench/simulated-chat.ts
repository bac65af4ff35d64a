import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { prepareBaseline } from './baseline.ts';
import { runAutocannon } from './load-autocannon.ts';
import { cpuMs, memory } from './proc-stats.ts';
import { freePort, ROOT, type Server, startGateway } from './processes.ts';
import { BENCH_APP, BENCH_SECRET } from './scenarios.ts';

/**
 * `node bench/simulated-chat.ts --baseline=REV`: what the tokenizer costs a chat answered by the
 * simulated provider, which counts the prompt's tokens and tokenizes its answer on every request.
 * Each checkout's gateway starts as `npm start` starts it (SURFACES=gateway, every slot
 * simulated); the table gives the RSS before and after the first request (which loads the
 * tokenizer), then latency, req/s and CPU per request at each concurrency, in rounds interleaved
 * between the checkouts so that what the machine does meanwhile falls on both alike.
 */
const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '1,10' },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const concurrencies = (values.concurrency ?? '1').split(',').map(Number);
const spec = {
  path: '/v1/chat',
  headers: {
    'content-type': 'application/json',
    'x-gateway-app': BENCH_APP,
    'x-gateway-secret': BENCH_SECRET,
  },
  body: JSON.stringify({ messages: [{ role: 'user', content: 'Tell me about the gateway, briefly.' }] }),
};

interface Checkout {
  label: string;
  root: URL;
  server?: Server;
  dataDir: string;
  rssIdle: number;
  rssAfterFirst: number;
  runs: Map<number, { p50: number; p99: number; rps: number; cpuUs: number }[]>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function start(checkout: Checkout): Promise<void> {
  mkdirSync(checkout.dataDir, { recursive: true });
  const port = await freePort();
  const server = await startGateway({
    root: checkout.root,
    logFile: join(checkout.dataDir, 'gateway.log'),
    env: {
      SURFACES: 'gateway',
      GATEWAY_PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: checkout.dataDir,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      GATEWAY_APPS: `${BENCH_APP}:${BENCH_SECRET}`,
    },
  });
  checkout.server = server;
  await sleep(3000);
  checkout.rssIdle = memory(server.pid).rssMb;
  const response = await fetch(`http://127.0.0.1:${port}${spec.path}`, {
    method: 'POST',
    headers: spec.headers,
    body: spec.body,
  });
  if (!response.ok) throw new Error(`${checkout.label}: first chat answered ${response.status}`);
  await response.arrayBuffer();
  await sleep(3000);
  checkout.rssAfterFirst = memory(server.pid).rssMb;
}

const tmp = fileURLToPath(new URL('bench/results/tmp/', ROOT));
const checkouts: Checkout[] = [];
if (values.baseline !== undefined) {
  const baseline = prepareBaseline(values.baseline);
  checkouts.push({
    label: `baseline ${values.baseline} (${baseline.commit})`,
    root: baseline.root,
    dataDir: join(tmp, `simulated-chat-${process.pid}-baseline`),
    rssIdle: 0,
    rssAfterFirst: 0,
    runs: new Map(),
  });
}
checkouts.push({
  label: 'this checkout',
  root: ROOT,
  dataDir: join(tmp, `simulated-chat-${process.pid}-current`),
  rssIdle: 0,
  rssAfterFirst: 0,
  runs: new Map(),
});

try {
  for (const checkout of checkouts) await start(checkout);
  for (let round = 0; round < rounds; round++) {
    for (const connections of concurrencies) {
      for (const checkout of checkouts) {
        const server = checkout.server as Server;
        const cpuBefore = cpuMs(server.pid);
        const result = await runAutocannon({ port: server.port, spec, connections, seconds });
        const cpu = cpuMs(server.pid) - cpuBefore;
        if (result.failures > 0) throw new Error(`${checkout.label}: ${result.failures} failures`);
        const runs = checkout.runs.get(connections) ?? [];
        runs.push({
          p50: result.latency.p50,
          p99: result.latency.p99,
          rps: result.rps,
          cpuUs: (cpu * 1000) / result.requests,
        });
        checkout.runs.set(connections, runs);
        process.stderr.write(
          `${checkout.label}, round ${round + 1}, ${connections} connections: ${result.rps.toFixed(0)} req/s\n`,
        );
      }
    }
  }
  const lines = [
    `Simulated chat (POST /v1/chat, a one-line prompt), ${rounds} rounds of ${seconds} s, interleaved; each cell the median round by req/s, CPU the round's range.`,
    '',
    '| checkout | RSS idle | RSS after the first chat | peak RSS | connections | p50 | p99 | req/s | CPU per request |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const checkout of checkouts) {
    const peak = memory((checkout.server as Server).pid).peakRssMb;
    for (const connections of concurrencies) {
      const runs = [...(checkout.runs.get(connections) ?? [])].sort((a, b) => a.rps - b.rps);
      const median = runs[Math.floor(runs.length / 2)];
      if (median === undefined) continue;
      const cpus = runs.map((run) => run.cpuUs);
      lines.push(
        `| ${checkout.label} | ${checkout.rssIdle.toFixed(1)} MiB | ${checkout.rssAfterFirst.toFixed(1)} MiB | ${peak.toFixed(1)} MiB | ${connections} | ${median.p50.toFixed(2)} ms | ${median.p99.toFixed(2)} ms | ${median.rps.toFixed(0)} | ${Math.min(...cpus).toFixed(0)}-${Math.max(...cpus).toFixed(0)} µs |`,
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  for (const checkout of checkouts) {
    await checkout.server?.stop();
    rmSync(checkout.dataDir, { recursive: true, force: true });
  }
}
