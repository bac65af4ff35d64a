import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startChatTarget, threadCpuOver } from './chat-target.ts';
import { drive, workloadSpecs } from './drive-requests.ts';
import { ROOT, type Server, startHelper } from './processes.ts';

/**
 * `node bench/warm-up-windows.ts --target=gateway`: a freshly started server's CPU per request,
 * by thread, over consecutive windows of requests (chat at 50 connections from a Node client,
 * client, mock and server sharing the cores). Shows how long V8 goes on compiling the hot code
 * after start: its helper threads' share falls window by window until the code is compiled,
 * which is what bench/settle.ts waits for before the bench's rounds.
 */
const { values } = parseArgs({
  options: {
    target: { type: 'string', default: 'gateway' },
    workload: { type: 'string', default: 'chat' },
    windows: { type: 'string', default: '6' },
    requests: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '50' },
  },
});
const target = values.target === 'forwarder' ? 'forwarder' : 'gateway';
const requests = Number(values.requests);
const dir = join(new URL('bench/results/tmp/', ROOT).pathname, `warm-up-windows-${process.pid}`);
mkdirSync(dir, { recursive: true });
const mock = await startHelper('mock', 'bench/mock-upstream.ts', []);
let server: Server | undefined;
try {
  const started = await startChatTarget(target, mock, dir, 'windows');
  server = started;
  const specs = workloadSpecs(values.workload, target);
  const concurrency = Number(values.concurrency);
  for (let window = 0; window < Number(values.windows); window++) {
    const threads = (
      await threadCpuOver(started.pid, requests, () => drive(started.port, specs, requests, concurrency))
    )
      .filter(([, us]) => us >= 0.5)
      .map(([name, us]) => `${name} ${us.toFixed(0)}`);
    process.stdout.write(
      `${target}, requests ${window * requests}-${(window + 1) * requests}: µs a request by thread: ${threads.join(', ')}\n`,
    );
  }
} finally {
  await server?.stop();
  await mock.stop();
  rmSync(dir, { recursive: true, force: true });
}
