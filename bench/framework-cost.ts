import { parseArgs } from 'node:util';
import { runAutocannon } from './load-autocannon.ts';
import { cpuMs } from './proc-stats.ts';
import { type Server, startHelper } from './processes.ts';
import { BENCH_APP, BENCH_SECRET, requestFor } from './scenarios.ts';

/**
 * `node bench/framework-cost.ts`: what the HTTP layer alone costs per chat request, with no
 * upstream and no gateway logic (bench/framework-server.ts): node:http, bare Fastify, and the
 * gateway's Fastify base with its hooks, each validating the gateway's ChatRequest and answering
 * a fixed ChatResponse, in interleaved rounds at 50 connections. The difference between `node`
 * and `base` bounds what serving the hot routes outside Fastify's lifecycle could save.
 */
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '50' },
  },
});
const kinds: [string, string[]][] = [
  ['node:http', ['--kind=node']],
  ['fastify, bare', ['--kind=fastify']],
  ['gateway base, log warn', ['--kind=base', '--log-level=warn']],
  ['gateway base, log info', ['--kind=base', '--log-level=info']],
];
const spec = {
  ...requestFor('gateway', 'chat'),
  headers: {
    'content-type': 'application/json',
    'x-gateway-app': BENCH_APP,
    'x-gateway-secret': BENCH_SECRET,
  },
};
const servers: Server[] = [];
try {
  for (const [name, args] of kinds) servers.push(await startHelper(name, 'bench/framework-server.ts', args));
  const cpu: number[][] = kinds.map(() => []);
  const rps: number[][] = kinds.map(() => []);
  for (let round = 0; round < Number(values.rounds) + 1; round++) {
    for (const [index, server] of servers.entries()) {
      const before = cpuMs(server.pid);
      const load = await runAutocannon({
        port: server.port,
        spec,
        connections: Number(values.concurrency),
        seconds: Number(values.seconds),
      });
      const used = cpuMs(server.pid) - before;
      // The first round warms the JIT up and is not counted.
      if (round === 0) continue;
      cpu[index]?.push((used * 1000) / load.requests);
      rps[index]?.push(load.rps);
    }
  }
  for (const [index, [name]] of kinds.entries()) {
    const sorted = [...(cpu[index] ?? [])].sort((a, b) => a - b);
    const rates = [...(rps[index] ?? [])].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    process.stdout.write(
      `${name}: CPU µs/req median ${sorted[middle]?.toFixed(1)} (rounds ${sorted.map((c) => c.toFixed(0)).join(' ')}), req/s median ${rates[middle]?.toFixed(0)}\n`,
    );
  }
} finally {
  await Promise.all(servers.map((server) => server.stop()));
}
