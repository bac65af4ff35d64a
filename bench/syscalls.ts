import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { prepareBaseline } from './baseline.ts';
import { drive, workloadSpecs } from './drive-requests.ts';
import { gatewayEnv } from './gateway-env.ts';
import { cpuMs, processTree } from './proc-stats.ts';
import { freePort, ROOT, type Server, startGateway, startHelper } from './processes.ts';

/**
 * `node bench/syscalls.ts --workload=chat --baseline=REV[,REV…]`: the system calls a request costs
 * the gateway (every thread; with `--workers=N`, every process of the instance), counted by `strace -c -f` over a fixed number of requests after a
 * warm-up. Callgrind (bench/instructions.ts) counts user-space instructions only; the kernel's
 * share of a request's CPU is in its system calls, and their number, like the instruction count,
 * does not move with the load of a shared box. Also prints the CPU µs per request of the same
 * requests under strace, which the load and strace both inflate: read it only beside a baseline
 * measured in the same run.
 */
const { values } = parseArgs({
  options: {
    workload: { type: 'string', default: 'chat' },
    requests: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '8' },
    baseline: { type: 'string' },
    'baseline-only': { type: 'boolean', default: false },
    top: { type: 'string', default: '12' },
    /** GATEWAY_WORKERS: above 1, every process of the instance is counted (primary and workers). */
    workers: { type: 'string', default: '1' },
  },
});

const dir = join(fileURLToPath(new URL('bench/results/tmp/', ROOT)), `syscalls-${process.pid}`);
mkdirSync(dir, { recursive: true });

interface Counted {
  label: string;
  perRequest: number;
  cpuUs: number;
  byName: [string, number][];
}

/** `strace -c`'s table: calls per system call name. */
function parseSummary(text: string): [string, number][] {
  const rows: [string, number][] = [];
  for (const line of text.split('\n')) {
    const cells = line.trim().split(/\s+/);
    // % time, seconds, usecs/call, calls, [errors], syscall
    if (cells.length < 5 || !/^\d/.test(cells[0] as string)) continue;
    const name = cells.at(-1) as string;
    if (name === 'total') continue;
    rows.push([name, Number(cells[3])]);
  }
  return rows.sort((a, b) => b[1] - a[1]);
}

async function measure(label: string, root: URL | undefined, mockPort: number): Promise<Counted> {
  const port = await freePort();
  const prefix = label.replace(/\W+/g, '-');
  const gateway: Server = await startGateway({
    env: { ...gatewayEnv(port, mockPort, join(dir, `data-${prefix}`)), GATEWAY_WORKERS: values.workers },
    logFile: join(dir, `${prefix}.log`),
    ...(root === undefined ? {} : { root }),
  });
  try {
    const specs = workloadSpecs(values.workload);
    const concurrency = Number(values.concurrency);
    const requests = Number(values.requests);
    // The workers after the first start once it serves: wait for all (and the primary) first.
    const workers = Number(values.workers);
    const processes = workers > 1 ? workers + 1 : 1;
    const deadline = Date.now() + 60_000;
    while (processTree(gateway.pid).length < processes) {
      if (Date.now() > deadline) throw new Error(`${label}: not every worker started`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await drive(port, specs, Number(values.warmup), concurrency);
    const pids = processTree(gateway.pid).flatMap((pid) => ['-p', String(pid)]);
    const strace = spawn('strace', ['-c', '-f', ...pids], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let summary = '';
    strace.stderr.setEncoding('utf8').on('data', (text: string) => {
      summary += text;
    });
    // strace prints "Process … attached" per thread once it is in place.
    while (!summary.includes('attached')) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cpuBefore = cpuMs(gateway.pid);
    await drive(port, specs, requests, concurrency);
    const cpuUs = ((cpuMs(gateway.pid) - cpuBefore) * 1000) / requests;
    const exited = once(strace, 'exit');
    strace.kill('SIGINT');
    await exited;
    const byName = parseSummary(summary);
    const total = byName.reduce((sum, [, calls]) => sum + calls, 0);
    return { label, perRequest: total / requests, cpuUs, byName };
  } finally {
    await gateway.stop();
  }
}

const running: Server[] = [];
try {
  const mock = await startHelper('mock', 'bench/mock-upstream.ts', []);
  running.push(mock);
  const rows: Counted[] = [];
  if (!values['baseline-only']) rows.push(await measure('this commit', undefined, mock.port));
  for (const rev of values.baseline?.split(',').filter((name) => name !== '') ?? []) {
    const baseline = prepareBaseline(rev);
    rows.push(await measure(`baseline ${baseline.commit}`, baseline.root, mock.port));
  }
  const requests = Number(values.requests);
  process.stdout.write(
    `${values.workload}, ${values.requests} requests after ${values.warmup}, ${values.concurrency} at a time\n`,
  );
  for (const row of rows) {
    const top = row.byName
      .slice(0, Number(values.top))
      .map(([name, calls]) => `${name} ${(calls / requests).toFixed(2)}`)
      .join(', ');
    process.stdout.write(
      `${row.label}: ${row.perRequest.toFixed(2)} system calls per request (${top}); ${row.cpuUs.toFixed(0)} µs CPU per request under strace\n`,
    );
  }
} finally {
  for (const server of running) await server.stop();
  if (process.env.KEEP === undefined) rmSync(dir, { recursive: true, force: true });
}
