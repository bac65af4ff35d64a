import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gatewayEnv } from './gateway-env.ts';
import { measureCase } from './measure.ts';
import { memory } from './proc-stats.ts';
import { freePort, ROOT, type Server, startCommand, startHelper } from './processes.ts';
import type { Workload } from './scenarios.ts';

/**
 * `node bench/compare-builds.ts --workload=chat --concurrency=50 <entry.js> <entry.js> …`: several
 * builds of the gateway (a bundle made with other options, a tsc build, another commit's dist/),
 * each started as `npm start` starts it (an entry may add variables and node flags:
 * `dist/main.js?LOG_LEVEL=warn#--import=./bench/preload-no-ledger.ts`), against one mock upstream, measured in interleaved
 * rounds so that what the machine does meanwhile falls on all of them alike. Prints each entry's
 * CPU per request and req/s over the rounds, and its peak RSS (VmHWM) after them. For a question about how the code is built or
 * started; `npm run bench -- --baseline=<commit>` answers the question about a change of code.
 */
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    workload: { type: 'string', default: 'chat' },
    concurrency: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '3' },
  },
});
if (positionals.length === 0) throw new Error('name at least one entry point (a built main.js)');
const tempDir = join(fileURLToPath(ROOT), 'bench', 'results', 'tmp', `compare-builds-${process.pid}`);
mkdirSync(tempDir, { recursive: true });

async function startEntry(spec: string, mockPort: number, index: number): Promise<Server> {
  const [path = spec, flags = ''] = spec.split('#');
  const [entry = path, query = ''] = path.split('?');
  const start = startCommand();
  const port = await freePort();
  const log = openSync(join(tempDir, `compare-builds-${index}.log`), 'a');
  const child = spawn(
    process.execPath,
    [...start.nodeArgs, ...flags.split(' ').filter((flag) => flag !== ''), entry],
    {
      env: {
        PATH: process.env.PATH ?? '',
        ...start.env,
        ...gatewayEnv(port, mockPort, join(tempDir, `compare-builds-${index}`)),
        ...Object.fromEntries(new URLSearchParams(query)),
      },
      stdio: ['ignore', log, log],
    },
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      await response.arrayBuffer();
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`${entry} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    name: 'gateway',
    child,
    pid: child.pid as number,
    port,
    stop: async () => {
      child.kill('SIGTERM');
    },
  };
}

const mock = await startHelper('mock', 'bench/mock-upstream.ts', []);
const servers: Server[] = [];
try {
  for (const [index, entry] of positionals.entries()) servers.push(await startEntry(entry, mock.port, index));
  const rounds: { rps: number; cpu: number; p50: number; p99: number }[][] = positionals.map(() => []);
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const [index, server] of servers.entries()) {
      const row = await measureCase({
        target: 'gateway',
        server,
        mock,
        workload: values.workload as Workload,
        concurrency: Number(values.concurrency),
        seconds: Number(values.seconds),
        warmupSeconds: 0.5,
      });
      rounds[index]?.push({
        rps: row.rps,
        cpu: row.cpuUsPerRequest,
        p50: row.latency.p50,
        p99: row.latency.p99,
      });
    }
  }
  for (const [index, rows] of rounds.entries()) {
    const cpu = rows.map((row) => row.cpu).sort((a, b) => a - b);
    const rps = rows.map((row) => row.rps).sort((a, b) => a - b);
    const p50 = rows.map((row) => row.p50).sort((a, b) => a - b);
    const p99 = rows.map((row) => row.p99).sort((a, b) => a - b);
    const middle = Math.floor(rows.length / 2);
    process.stdout.write(
      `${positionals[index]}: CPU µs/req median ${cpu[middle]?.toFixed(0)} (rounds ${cpu.map((c) => c.toFixed(0)).join(' ')}), ` +
        `req/s median ${rps[middle]?.toFixed(0)}, latency p50 ${p50[middle]?.toFixed(3)} ms, ` +
        `p99 median ${p99[middle]?.toFixed(3)} ms (rounds ${p99.map((p) => p.toFixed(2)).join(' ')}), peak RSS ${memory(servers[index]?.pid as number).peakRssMb.toFixed(0)} MiB\n`,
    );
  }
} finally {
  await Promise.all([...servers, mock].map((server) => server.stop()));
}
