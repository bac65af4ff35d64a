import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SIMULATED_SLOT_C } from './agent-run.ts';
import { hugeChat, relayMessages } from './agent-scenarios.ts';
import { HUGE_PROMPT_BYTES, hugeLoops, runConversation } from './agent-workloads.ts';
import { gatewayEnv } from './gateway-env.ts';
import { measureCase } from './measure.ts';
import { memory } from './proc-stats.ts';
import { freePort, ROOT, type Server, startGateway, startHelper } from './processes.ts';
import { type ProfileLine, summariseProfile } from './profile-summary.ts';
import { BENCH_APP, BENCH_SECRET, type Workload } from './scenarios.ts';

/**
 * `node bench/profile.ts --workload=chat`: the gateway under load with V8's CPU profiler on,
 * then where its time went (self time by function and by file or package, and time including
 * callees). The .cpuprofile is kept under bench/results/tmp/ for Chrome DevTools.
 * `--workload=conversation` profiles the agent conversation of bench/agent-workloads.ts instead
 * (100 turns growing to 100k tokens, one after another; `--seconds` of them, at least once);
 * `--workload=huge` the head-of-line case's 1 MiB prompts, two at a time for `--seconds`
 * (`--simulated` puts them on a simulated slot, `--relay` sends them as Messages requests on the
 * Anthropic door's same-vendor lane).
 */
const { values } = parseArgs({
  options: {
    workload: { type: 'string', default: 'chat' },
    concurrency: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '8' },
    top: { type: 'string', default: '30' },
    interval: { type: 'string', default: '200' },
    'log-level': { type: 'string', default: 'info' },
    /** Profile without the ledger's writes (see preload-no-ledger.ts), to see the rest better. */
    'no-ledger': { type: 'boolean', default: false },
    /** With `--workload=huge`: slot C on the simulated provider, and the prompts sent to it. */
    simulated: { type: 'boolean', default: false },
    /** With `--workload=huge`: Messages requests on the Anthropic door's same-vendor lane instead. */
    relay: { type: 'boolean', default: false },
  },
});

const dir = join(fileURLToPath(new URL('bench/results/tmp/', ROOT)), `profile-${process.pid}`);
mkdirSync(dir, { recursive: true });
const running: Server[] = [];

function print(title: string, lines: ProfileLine[]): void {
  process.stdout.write(`\n${title}\n`);
  for (const line of lines)
    process.stdout.write(
      `${line.selfPct.toFixed(1).padStart(6)}% ${line.totalPct.toFixed(1).padStart(6)}%  ${line.name}\n`,
    );
}

try {
  const mock = await startHelper('mock', 'bench/mock-upstream.ts', []);
  running.push(mock);
  const gateway = await startGateway({
    env: {
      ...gatewayEnv(await freePort(), mock.port, join(dir, 'data')),
      LOG_LEVEL: values['log-level'],
      ...(values.simulated ? SIMULATED_SLOT_C : {}),
    },
    logFile: join(dir, 'gateway.log'),
    nodeArgs: [
      '--cpu-prof',
      `--cpu-prof-dir=${dir}`,
      `--cpu-prof-interval=${values.interval}`,
      ...(values['no-ledger'] ? ['--import', './bench/preload-no-ledger.ts'] : []),
    ],
  });
  running.push(gateway);
  let measured: string;
  if (values.workload === 'conversation') {
    const until = performance.now() + Number(values.seconds) * 1000;
    const turns: number[] = [];
    do turns.push((await runConversation('gateway', gateway.port, gateway.pid, 'gateway')).cpuUsPerTurn);
    while (performance.now() < until);
    measured = `conversation x${turns.length}: ${turns.map((us) => us.toFixed(0)).join(', ')} µs CPU/turn`;
  } else if (values.workload === 'huge') {
    const model = values.simulated ? 'provider-c/simulated-chat' : 'provider-a/gpt-4o-mini';
    const spec = values.relay
      ? relayMessages(`${BENCH_APP}:${BENCH_SECRET}`, HUGE_PROMPT_BYTES)
      : hugeChat(model, HUGE_PROMPT_BYTES);
    const stop = new Promise<void>((resolve) => setTimeout(resolve, Number(values.seconds) * 1000));
    const answered = await hugeLoops(gateway.port, spec, 2, stop);
    measured = `huge x${answered} (1 MiB prompts, two at a time, ${values.relay ? 'the same-vendor lane' : model})`;
  } else {
    const row = await measureCase({
      target: 'gateway',
      server: gateway,
      mock,
      workload: values.workload as Workload,
      concurrency: Number(values.concurrency),
      seconds: Number(values.seconds),
      warmupSeconds: 1,
    });
    measured = `${values.workload} c=${values.concurrency}: ${row.rps.toFixed(0)} req/s, ${row.cpuUsPerRequest.toFixed(0)} µs CPU/req`;
  }
  const rss = memory(gateway.pid);
  await gateway.stop();
  process.stdout.write(
    `${measured} (profiler on), RSS ${rss.rssMb.toFixed(0)} MiB, peak ${rss.peakRssMb.toFixed(0)} MiB\n`,
  );
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`no profile written in ${dir}`);
  const summary = summariseProfile(join(dir, file), Number(values.top));
  print('self%  total%  by file or package (self time)', summary.places);
  print('self%  total%  by file or package (including callees)', summary.placesInclusive);
  print('self%  total%  by function (self time)', summary.functions);
  print('self%  total%  by function (including callees)', summary.inclusive);
  process.stdout.write(`\nprofile: ${join(dir, file)}\n`);
  rmSync(join(dir, 'data'), { recursive: true, force: true });
} finally {
  await Promise.all(running.map((server) => server.stop()));
}
