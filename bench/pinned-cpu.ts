import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startChatTarget, threadCpuOver } from './chat-target.ts';
import { drive, workloadSpecs } from './drive-requests.ts';
import { ROOT, type Server, startHelper } from './processes.ts';

/**
 * `node bench/pinned-cpu.ts --requests=20000 --rounds=3`: chat's CPU per request for the thin
 * forwarder and the gateway, each pinned alone to the last CPU (taskset) while the client and the
 * mock share the others, over a fixed count of requests after a warm-up, in interleaved rounds;
 * by thread. The forwarder runs on the gateway's V8 flags (npm start's), so the two differ by
 * their code only. Unlike `npm run bench`, whose servers share every core with the load
 * generator and are driven to saturation, here the server has a core to itself and is driven by
 * a Node client (bench/drive-requests.ts) that is slower than the server: a server that is not
 * saturated handles fewer requests per wake-up, and its CPU per request is higher. The ratio of
 * the two therefore depends on how hard they are driven; this is the unsaturated end of it.
 */
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    warmup: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
  },
});

const cpus = availableParallelism();
if (cpus < 2) throw new Error('pinning needs at least two CPUs');
const serverCpu = String(cpus - 1);
const othersCpus = `0-${cpus - 2}`;
const pin = (cpuList: string, pid: number) =>
  execFileSync('taskset', ['-apc', cpuList, String(pid)], { stdio: 'ignore' });

const dir = join(fileURLToPath(new URL('bench/results/tmp/', ROOT)), `pinned-cpu-${process.pid}`);
mkdirSync(dir, { recursive: true });
const running: Server[] = [];
const requests = Number(values.requests);
const perRequest: Record<'forwarder' | 'gateway', number[]> = { forwarder: [], gateway: [] };

try {
  pin(othersCpus, process.pid);
  const mock = await startHelper('mock', 'bench/mock-upstream.ts', []);
  running.push(mock);
  pin(othersCpus, mock.pid);
  for (let round = 0; round < Number(values.rounds); round++)
    for (const target of ['forwarder', 'gateway'] as const) {
      const server = await startChatTarget(target, mock, dir, String(round));
      pin(serverCpu, server.pid);
      const specs = workloadSpecs('chat', target);
      const concurrency = Number(values.concurrency);
      await drive(server.port, specs, Number(values.warmup), concurrency);
      const byThread = await threadCpuOver(server.pid, requests, () =>
        drive(server.port, specs, requests, concurrency),
      );
      await server.stop();
      let total = 0;
      const threads: string[] = [];
      for (const [name, us] of byThread) {
        total += us;
        if (us >= 1) threads.push(`${name} ${us.toFixed(0)}`);
      }
      perRequest[target].push(total);
      process.stdout.write(
        `round ${round + 1} ${target}: ${total.toFixed(0)} µs CPU per request (${threads.join(', ')})\n`,
      );
    }
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] as number;
  const forwarder = median(perRequest.forwarder);
  const gateway = median(perRequest.gateway);
  process.stdout.write(
    `chat, c=${values.concurrency}, ${requests} requests a round, each server alone on CPU ${serverCpu}: ` +
      `forwarder ${forwarder.toFixed(0)} µs, gateway ${gateway.toFixed(0)} µs CPU per request (medians), ${(gateway / forwarder).toFixed(2)}×\n`,
  );
} finally {
  await Promise.all(running.map((server) => server.stop()));
  rmSync(dir, { recursive: true, force: true });
}
