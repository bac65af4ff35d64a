import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gatewayEnv } from './gateway-env.ts';
import { measureCase } from './measure.ts';
import { memory } from './proc-stats.ts';
import { freePort, ROOT, startCommand, startForwarder, startGateway, startHelper } from './processes.ts';
import type { Workload } from './scenarios.ts';

/**
 * `node bench/peak-memory.ts [--workloads=chat,json] [--node-args="--max-semi-space-size=8"]`:
 * the peak RSS (VmHWM) of a fresh gateway and a fresh thin forwarder on the gateway's start
 * settings, each taken through one workload (three rounds at 50 connections, interleaved), for
 * each workload. `npm run bench` reports one peak over all its cases; this says which workload
 * sets it, and what a start flag changes (`--node-args` is added to the gateway's flags only).
 */
const { values } = parseArgs({
  options: {
    workloads: { type: 'string', default: 'chat,openai-chat,embed,embed-json,json,stream,stream-burst' },
    'node-args': { type: 'string', default: '' },
    rounds: { type: 'string', default: '3' },
  },
});
const tempDir = join(fileURLToPath(ROOT), 'bench', 'results', 'tmp', `peak-memory-${process.pid}`);
mkdirSync(tempDir, { recursive: true });
const extraArgs = values['node-args'] === '' ? [] : values['node-args'].split(' ');
const mock = await startHelper('mock', 'bench/mock-upstream.ts', []);
const start = startCommand();
try {
  for (const workload of values.workloads.split(',') as Workload[]) {
    const gateway = await startGateway({
      env: gatewayEnv(await freePort(), mock.port, join(tempDir, workload)),
      logFile: join(tempDir, `${workload}.log`),
      nodeArgs: extraArgs,
    });
    const forwarder = await startForwarder(mock, 'forwarder-gateway-flags', start.nodeArgs, start.env);
    const cpu: number[] = [];
    for (let round = 0; round < Number(values.rounds); round++) {
      const options = { mock, workload, concurrency: 50, seconds: 3, warmupSeconds: 0.5 };
      cpu.push((await measureCase({ ...options, target: 'gateway', server: gateway })).cpuUsPerRequest);
      await measureCase({ ...options, target: 'forwarder', server: forwarder });
    }
    process.stdout.write(
      `${workload}: peak RSS gateway ${memory(gateway.pid).peakRssMb.toFixed(0)} MiB, forwarder on the gateway's ` +
        `settings ${memory(forwarder.pid).peakRssMb.toFixed(0)} MiB; gateway CPU µs/req by round ${cpu.map((c) => c.toFixed(0)).join(' ')}\n`,
    );
    await Promise.all([gateway.stop(), forwarder.stop()]);
  }
} finally {
  await mock.stop();
}
