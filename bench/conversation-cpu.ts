import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runConversation } from './agent-workloads.ts';
import { prepareBaseline } from './baseline.ts';
import { gatewayEnv } from './gateway-env.ts';
import { freePort, ROOT, type Server, startForwarder, startGateway, startHelper } from './processes.ts';

/**
 * `node bench/conversation-cpu.ts --baseline=REV [--rounds=5]`: the agent conversation of
 * bench/agent-workloads.ts (100 turns growing to 100k tokens, one after another) on the
 * forwarder, this commit's gateway and another revision's, in interleaved rounds: CPU per turn,
 * median and range. The agent section of `npm run bench` runs the conversation once per server;
 * a before-and-after of a few hundred microseconds needs rounds on this shared box.
 */
const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '5' },
  },
});

const dir = join(fileURLToPath(new URL('bench/results/tmp/', ROOT)), `conversation-${process.pid}`);
mkdirSync(dir, { recursive: true });
const running: Server[] = [];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

try {
  const mock = await startHelper('mock', 'bench/mock-upstream.ts', []);
  running.push(mock);
  const forwarder = await startForwarder(mock);
  running.push(forwarder);
  const servers: [string, Server, 'gateway' | 'upstream'][] = [['forwarder', forwarder, 'upstream']];
  const roots: [string, URL | undefined][] = [['this commit', undefined]];
  if (values.baseline !== undefined) {
    const baseline = prepareBaseline(values.baseline);
    roots.push([`baseline ${baseline.commit}`, baseline.root]);
  }
  for (const [label, root] of roots) {
    const gateway = await startGateway({
      env: gatewayEnv(await freePort(), mock.port, join(dir, `data-${servers.length}`)),
      logFile: join(dir, `gateway-${servers.length}.log`),
      ...(root === undefined ? {} : { root }),
    });
    running.push(gateway);
    servers.push([label, gateway, 'gateway']);
  }
  for (const [label, server, target] of servers)
    await runConversation(label, server.port, server.pid, target);
  const cpu = new Map<string, number[]>(servers.map(([label]) => [label, []]));
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const [label, server, target] of servers) {
      const row = await runConversation(label, server.port, server.pid, target);
      if (row.failures > 0) throw new Error(`${label}: ${row.failures} turns failed`);
      cpu.get(label)?.push(row.cpuUsPerTurn);
    }
  }
  process.stdout.write('| server | CPU µs per turn, median | range |\n| --- | ---: | --- |\n');
  for (const [label, list] of cpu) {
    const range = `${Math.min(...list).toFixed(0)}-${Math.max(...list).toFixed(0)}`;
    process.stdout.write(`| ${label} | ${median(list).toFixed(0)} | ${range} |\n`);
  }
} finally {
  for (const server of running.reverse()) await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
