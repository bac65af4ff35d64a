import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { relayMessages } from './agent-scenarios.ts';
import { HUGE_PROMPT_BYTES, hugeLoops } from './agent-workloads.ts';
import { gatewayEnv } from './gateway-env.ts';
import { cpuMsByThreadName } from './proc-stats.ts';
import { freePort, ROOT, type Server, startForwarder, startGateway, startHelper } from './processes.ts';
import { BENCH_APP, BENCH_SECRET, MOCK_API_KEY } from './scenarios.ts';

/**
 * `node bench/huge-prompt-cpu.ts [--seconds=6] [--rounds=2] [--node-args='--flag …']`: the CPU a
 * 1 MiB Messages prompt on the Anthropic door's same-vendor lane costs the gateway, thread by
 * thread (its main thread, V8's helper threads, the JSON thread, the others), against the
 * forwarder moving the same prompt, one prompt at a time (the head-of-line case's huge side,
 * without the small requests). On two cores the head-of-line case is short of CPU, so every
 * thread's share counts, not only the event loop's. `--node-args` starts the gateway with more
 * node flags (after npm start's), to compare start settings.
 */
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '2' },
    'node-args': { type: 'string', default: '' },
  },
});

/** A thread's name as the table shows it: V8's helpers together, the rest by name. */
function kindOf(name: string): string {
  return name.startsWith('V8') || name === 'DelayedTaskSche' ? 'V8 helpers' : name;
}

async function measure(server: Server, key: string, seconds: number): Promise<string> {
  const spec = relayMessages(key, HUGE_PROMPT_BYTES);
  await hugeLoops(server.port, spec, 1, new Promise((resolve) => setTimeout(resolve, 1500)));
  const before = cpuMsByThreadName(server.pid);
  const prompts = await hugeLoops(
    server.port,
    spec,
    1,
    new Promise((resolve) => setTimeout(resolve, seconds * 1000)),
  );
  const kinds = new Map<string, number>();
  for (const [name, ms] of cpuMsByThreadName(server.pid)) {
    const spent = ms - (before.get(name) ?? 0);
    if (spent > 0) kinds.set(kindOf(name), (kinds.get(kindOf(name)) ?? 0) + spent);
  }
  const total = [...kinds.values()].reduce((sum, ms) => sum + ms, 0);
  const parts = [...kinds]
    .sort((a, b) => b[1] - a[1])
    .map(([kind, ms]) => `${kind} ${(ms / prompts).toFixed(2)}`)
    .join(', ');
  return `${server.name}: ${prompts} prompts in ${seconds} s; CPU ms per prompt ${(total / prompts).toFixed(2)} (${parts})`;
}

const dir = join(fileURLToPath(new URL('bench/results/tmp/', ROOT)), `huge-prompt-cpu-${process.pid}`);
mkdirSync(dir, { recursive: true });
const running: Server[] = [];
try {
  const mock = await startHelper('mock', 'bench/mock-upstream.ts', []);
  running.push(mock);
  const forwarder = await startForwarder(mock);
  running.push(forwarder);
  const nodeArgs = values['node-args'].split(' ').filter((arg) => arg !== '');
  const gateway = await startGateway({
    env: { ...gatewayEnv(await freePort(), mock.port, join(dir, 'data')), LOG_LEVEL: 'warn' },
    logFile: join(dir, 'gateway.log'),
    nodeArgs,
  });
  running.push(gateway);
  const seconds = Number(values.seconds);
  for (let round = 0; round < Number(values.rounds); round++) {
    process.stdout.write(`${await measure(forwarder, MOCK_API_KEY, seconds)}\n`);
    process.stdout.write(`${await measure(gateway, `${BENCH_APP}:${BENCH_SECRET}`, seconds)}\n`);
  }
} finally {
  await Promise.all(running.map((server) => server.stop()));
  rmSync(dir, { recursive: true, force: true });
}
