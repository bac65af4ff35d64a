import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { memory, processTree } from './proc-stats.ts';
import { freePort, ROOT, startGateway } from './processes.ts';

export interface EveryCoreMemory {
  workers: number;
  /** `GATEWAY_WORKERS=1`: the single process. */
  oneProcessMb: number;
  primaryMb: number;
  /** Each worker's RSS, in the order the primary forked them. */
  perWorkerMb: number[];
  allMb: number;
}

/** One process's RSS alone (memory() adds a process's children: the primary's would hold every worker). */
function ownRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
}

/** How long after the last worker appears the readings are taken (as docs/operations.md gives them). */
const SETTLE_MS = 3_000;

/**
 * Idle RSS of `npm start` with its embedded defaults (both surfaces, simulated slots), once with
 * one process and once with a worker per CPU: the primary, each worker and all, read once every
 * worker is up and `SETTLE_MS` have passed, before any request. `dir` holds the data and logs.
 */
export async function everyCoreMemory(dir: string): Promise<EveryCoreMemory> {
  const workers = availableParallelism();
  const start = async (name: string, count: string) =>
    startGateway({
      env: {
        GATEWAY_PORT: String(await freePort()),
        SITE_PORT: String(await freePort()),
        HOST: '127.0.0.1',
        DATA_DIR: join(dir, `data-${name}`),
        NODE_ENV: 'production',
        GATEWAY_WORKERS: count,
      },
      logFile: join(dir, `gateway-${name}.log`),
    });
  const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

  const single = await start('one-process', '1');
  await settle();
  const oneProcessMb = memory(single.pid).rssMb;
  await single.stop();

  const cluster = await start('every-core', 'auto');
  try {
    // /health answers once the first worker serves; the others start after it.
    const deadline = Date.now() + 60_000;
    while (processTree(cluster.pid).length < workers + 1) {
      if (Date.now() > deadline) throw new Error(`fewer than ${workers} workers after 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await settle();
    const [primary, ...children] = processTree(cluster.pid);
    const primaryMb = ownRssMb(primary as number);
    const perWorkerMb = children.map(ownRssMb);
    return {
      workers,
      oneProcessMb,
      primaryMb,
      perWorkerMb,
      allMb: primaryMb + perWorkerMb.reduce((sum, mb) => sum + mb, 0),
    };
  } finally {
    await cluster.stop();
  }
}

/** One line for the bench's log and the memory section. */
export function describeEveryCore(reading: EveryCoreMemory): string {
  const each = reading.perWorkerMb.map((mb) => mb.toFixed(0)).join(', ');
  return `one process ${reading.oneProcessMb.toFixed(0)} MiB; ${reading.workers} workers ${each} MiB and the primary ${reading.primaryMb.toFixed(0)} MiB, ${reading.allMb.toFixed(0)} MiB in all`;
}

// `node bench/every-core-memory.ts`: the readings alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = join(fileURLToPath(new URL('bench/results/tmp/', ROOT)), `every-core-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    process.stdout.write(`idle RSS, npm start defaults: ${describeEveryCore(await everyCoreMemory(dir))}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
