import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gatewayEnv } from './gateway-env.ts';
import { processTree } from './proc-stats.ts';
import { freePort, ROOT, startGateway, startHelper } from './processes.ts';

/**
 * `node bench/worker-replacement.ts --workers=2 --kills=3`: how long a dead worker leaves its
 * instance short (CONTRACT 6.8). The gateway runs as `npm start` runs it with `--workers` workers;
 * one is killed with SIGKILL, and the time until its replacement serves every surface is read
 * from the primary's log (`a new worker serves in place of the dead one`, `afterMs`: from the
 * exit the primary saw to the replacement listening). Start-up is CPU work, so a loaded machine
 * lengthens it: say the load beside the figure.
 */
const { values } = parseArgs({
  options: {
    workers: { type: 'string', default: '2' },
    kills: { type: 'string', default: '3' },
  },
});

const dir = join(fileURLToPath(new URL('bench/results/tmp/', ROOT)), `worker-replacement-${process.pid}`);
mkdirSync(dir, { recursive: true });
const logFile = join(dir, 'gateway.log');
const mock = await startHelper('mock', 'bench/mock-upstream.ts', []);
const gateway = await startGateway({
  env: { ...gatewayEnv(await freePort(), mock.port, join(dir, 'data')), GATEWAY_WORKERS: values.workers },
  logFile,
});

const replacements = (): number[] =>
  readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line.includes('a new worker serves in place of the dead one'))
    .map((line) => (JSON.parse(line) as { afterMs: number }).afterMs);

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`no ${what} within 60 s; see ${logFile}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

try {
  const workers = Number(values.workers);
  const seen: number[] = [];
  for (let kill = 0; kill < Number(values.kills); kill++) {
    await until(() => processTree(gateway.pid).length === workers + 1, 'full set of workers');
    // Settled, as a worker that has served a while is what dies in production.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const victim = processTree(gateway.pid)[1] as number;
    const before = replacements().length;
    process.kill(victim, 'SIGKILL');
    await until(() => replacements().length > before, 'replacement');
    const afterMs = replacements().at(-1) as number;
    seen.push(afterMs);
    process.stdout.write(`kill ${kill + 1}: worker ${victim} replaced, serving after ${afterMs} ms\n`);
  }
  const sorted = [...seen].sort((a, b) => a - b);
  process.stdout.write(
    `${workers} workers, ${seen.length} kills: replaced in ${sorted.join(', ')} ms (median ${sorted[Math.floor(sorted.length / 2)]})\n`,
  );
} finally {
  await gateway.stop();
  await mock.stop();
  rmSync(dir, { recursive: true, force: true });
}
