import { once } from 'node:events';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { prepareBaseline } from './baseline.ts';
import { BENCH_GUARDRAILS } from './guardrail-cost.ts';
import { type HostileCase, hostileCases } from './hostile-bodies.ts';
import { freePort, ROOT, type Server, startGateway } from './processes.ts';
import { BENCH_APP, BENCH_SECRET } from './scenarios.ts';

/**
 * `node bench/hostile.ts`: how long other requests wait while hostile ones run. The gateway
 * starts as `npm start` starts it, on the simulated provider (which counts tokens and samples
 * schemas, the work under test); for each hostile case one client sends that request back to
 * back for `--seconds`, while a prober in a worker thread sends GET /health every PROBE_EVERY_MS
 * on connections of its own. A health request's latency counts from when it was due, so time the gateway's
 * event loop spent blocked shows in it: its p99 and max are the event-loop delay another client
 * sees. `--baseline=REV` runs another revision's gateway through the same cases first.
 */
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    /** A hostile request still unanswered after this long is abandoned and counted as such. */
    'timeout-seconds': { type: 'string', default: '10' },
    cases: { type: 'string' },
    baseline: { type: 'string' },
    /** The bench app's built-in guards on input and output (bench/guardrail-cost.ts): the scan of each hostile body. */
    guards: { type: 'boolean', default: false },
  },
});

const PROBE_EVERY_MS = 10;
const seconds = Number(values.seconds);
const timeoutMs = Number(values['timeout-seconds']) * 1000;
const headers = {
  'content-type': 'application/json',
  'x-gateway-app': BENCH_APP,
  'x-gateway-secret': BENCH_SECRET,
};
const log = (line: string) => process.stderr.write(`${line}\n`);

interface CaseFigures {
  name: string;
  health: { count: number; p50: number; p99: number; max: number };
  answers: { count: number; statuses: string; p50: number; max: number; abandoned: number };
}

function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

/** GET /health every PROBE_EVERY_MS from a worker thread (health-prober.ts). */
function probeHealth(port: number): { stop(): Promise<number[]> } {
  const worker = new Worker(new URL('./health-prober.ts', import.meta.url), {
    workerData: { port, everyMs: PROBE_EVERY_MS },
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const [latencies] = (await once(worker, 'message')) as [number[]];
      await worker.terminate();
      return latencies;
    },
  };
}

async function runCase(port: number, hostile: HostileCase | undefined): Promise<CaseFigures> {
  const probe = probeHealth(port);
  const answerTimes: number[] = [];
  const statuses = new Map<string, number>();
  let abandoned = 0;
  const deadline = performance.now() + seconds * 1000;
  if (hostile === undefined) await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  while (hostile !== undefined && performance.now() < deadline) {
    const start = performance.now();
    try {
      const response = await fetch(`http://127.0.0.1:${port}${hostile.path}`, {
        method: 'POST',
        headers,
        body: hostile.body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.arrayBuffer();
      answerTimes.push(performance.now() - start);
      statuses.set(String(response.status), (statuses.get(String(response.status)) ?? 0) + 1);
    } catch {
      abandoned++;
      break; // The server is stuck on it: the next case would measure this one's stall.
    }
  }
  const health = (await probe.stop()).sort((a, b) => a - b);
  const answers = answerTimes.sort((a, b) => a - b);
  return {
    name: hostile?.name ?? 'quiet (no hostile request)',
    health: {
      count: health.length,
      p50: percentile(health, 0.5),
      p99: percentile(health, 0.99),
      max: health.at(-1) ?? Number.NaN,
    },
    answers: {
      count: answers.length,
      statuses: [...statuses].map(([status, count]) => `${count}×${status}`).join(' ') || '-',
      p50: percentile(answers, 0.5),
      max: answers.at(-1) ?? Number.NaN,
      abandoned,
    },
  };
}

async function runGateway(label: string, root: URL): Promise<CaseFigures[]> {
  const dataDir = join(fileURLToPath(new URL('bench/results/tmp/', ROOT)), `hostile-${process.pid}-${label}`);
  mkdirSync(dataDir, { recursive: true });
  const port = await freePort();
  const env = {
    SURFACES: 'gateway',
    GATEWAY_PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    GATEWAY_APPS: `${BENCH_APP}:${BENCH_SECRET}`,
  };
  if (values.guards) {
    const file = join(dataDir, 'guardrails.json');
    writeFileSync(file, JSON.stringify({ guardrails: BENCH_GUARDRAILS }));
    Object.assign(env, { CONFIG_FILE: file });
  }
  const selected = hostileCases().filter(
    (c) => values.cases === undefined || values.cases.split(',').some((part) => c.name.includes(part)),
  );
  const results: CaseFigures[] = [];
  let server: Server | undefined;
  try {
    for (const hostile of [undefined, ...selected]) {
      // A fresh gateway per case: a case that wedged the last one must not colour the next.
      server ??= await startGateway({ env, logFile: join(dataDir, 'gateway.log'), root });
      log(`${label}: ${hostile?.name ?? 'quiet'}`);
      const figures = await runCase(port, hostile);
      results.push(figures);
      if (figures.answers.abandoned > 0) {
        await server.stop();
        server = undefined;
      }
    }
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return results;
}

const ms = (value: number): string => (Number.isFinite(value) ? value.toFixed(0) : '∞');

function table(label: string, rows: CaseFigures[]): string {
  const lines = [
    `### ${label}`,
    '',
    '| case | GET /health p50 | p99 | max | hostile answers | statuses | answer p50 | answer max | abandoned |',
    '|---|---:|---:|---:|---:|---|---:|---:|---:|',
  ];
  for (const row of rows) {
    const { health, answers } = row;
    lines.push(
      `| ${row.name} | ${ms(health.p50)} ms | ${ms(health.p99)} ms | ${ms(health.max)} ms | ${answers.count} | ${answers.statuses} | ${ms(answers.p50)} ms | ${ms(answers.max)} ms | ${answers.abandoned} |`,
    );
  }
  return lines.join('\n');
}

const output: string[] = [
  `Hostile input: GET /health every ${PROBE_EVERY_MS} ms while one client sends each hostile request back to back for ${seconds} s (abandoned after ${timeoutMs / 1000} s)${values.guards ? ", the bench app's built-in guards on input and output" : ''}.`,
  '',
];
if (values.baseline !== undefined) {
  const baseline = prepareBaseline(values.baseline);
  output.push(
    table(`baseline ${values.baseline} (${baseline.commit})`, await runGateway('baseline', baseline.root)),
    '',
  );
}
output.push(table('this checkout', await runGateway('current', ROOT)));
process.stdout.write(`${output.join('\n')}\n`);
