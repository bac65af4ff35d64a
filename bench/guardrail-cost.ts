import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StartGateway } from './agent-run.ts';
import { type AgentDoor, PACED_STREAM, pacedStreamRequest } from './agent-scenarios.ts';
import type { LatencySummary } from './latency-stats.ts';
import { type CaseResult, measureCase, medianRound } from './measure.ts';
import { type PacedResult, runPacedStreams } from './paced-streams.ts';
import type { Server } from './processes.ts';
import { BENCH_APP, STREAM_WORKLOADS, type Workload } from './scenarios.ts';

/**
 * What the built-in guards cost (CONTRACT 6.6, issue 42's bench rows): the same gateway twice, one
 * without guardrails and one whose bench app has the built-in detectors (secrets and personal
 * data, mask) on input and on output, in interleaved rounds. CPU per request on the chat
 * workloads (the input walk and scan, and on streams the hold-back window), and the first token
 * of a paced stream (a model's pace, bench/agent-scenarios.ts): the window holds text back until
 * `window` characters are behind it, so the first token may be late by at most the time the
 * upstream takes to write that many characters (or its whole answer, when shorter).
 */

/** The guards the bench app gets: the built-in detectors, every type of both, masking. */
export const BENCH_GUARDRAILS = {
  guards: {
    'bench-secrets': { type: 'secrets', phase: ['input', 'output'], action: 'mask' },
    'bench-pii': { type: 'pii', phase: ['input', 'output'], action: 'mask' },
  },
  apps: { [BENCH_APP]: ['bench-secrets', 'bench-pii'] },
};
/** The window those guards hold a stream back by (compile-guards.ts: personal data needs 256). */
const WINDOW = 256;
/** CONTRACT 6.6 / issue 42: guards may add at most this much CPU to a chat request. */
const CPU_BUDGET = 0.15;

/** In the default run, where the section should stay cheap: the native chat and stream. */
export const DEFAULT_GUARD_WORKLOADS: readonly Workload[] = ['chat', 'stream'];
/** With `--guard-only`: every door and lane the guards change. */
export const GUARD_WORKLOADS: readonly Workload[] = [
  'chat',
  'openai-chat',
  'stream',
  'messages-relay',
  'messages-relay-stream',
];
const PACED_DOORS: readonly AgentDoor[] = ['native', 'anthropic-relay'];
const OFF = 'guards off';
const ON = 'built-in guards on input and output';

export interface PacedRow {
  door: AgentDoor;
  variant: string;
  result: PacedResult;
}

export interface GuardrailResults {
  rows: CaseResult[];
  paced: PacedRow[];
}

/**
 * How many of the paced upstream's token gaps lie between its first token and the token that
 * brings its text to `window` characters, or undefined when its whole answer is shorter.
 */
export function pacedWindowGaps(window: number): number | undefined {
  let chars = 0;
  for (let token = 0; token < PACED_STREAM.tokens; token++) {
    chars += `w${token} `.length;
    if (chars >= window) return token;
  }
  return undefined;
}

export async function measureGuardrailCost(options: {
  start: StartGateway;
  mock: Server;
  tempDir: string;
  concurrencies: readonly number[];
  seconds: number;
  warmupSeconds: number;
  rounds: number;
  log: (line: string) => void;
  workloads?: readonly Workload[];
}): Promise<GuardrailResults> {
  const workloads = options.workloads ?? GUARD_WORKLOADS;
  const file = join(options.tempDir, 'guardrails.json');
  // JSON is YAML: the configuration file the guarded gateway reads.
  writeFileSync(file, JSON.stringify({ guardrails: BENCH_GUARDRAILS }));
  const pair: [string, Server][] = [
    [OFF, await options.start('guards-off', {})],
    [ON, await options.start('guards-on', { env: { CONFIG_FILE: file } })],
  ];
  try {
    const measure = (
      server: Server,
      variant: string,
      workload: Workload,
      concurrency: number,
      secs: number,
    ) =>
      measureCase({
        target: 'gateway',
        variant,
        server,
        mock: options.mock,
        workload,
        concurrency,
        seconds: secs,
        warmupSeconds: secs === 1 ? 0 : options.warmupSeconds,
      });
    for (const workload of workloads)
      for (const [variant, server] of pair) await measure(server, variant, workload, 10, 1);
    const runs = new Map<string, CaseResult[]>();
    const paced = new Map<string, PacedResult[]>();
    for (let round = 0; round < options.rounds; round++) {
      for (const workload of workloads)
        for (const concurrency of options.concurrencies)
          for (const [variant, server] of pair) {
            const row = await measure(server, variant, workload, concurrency, options.seconds);
            const key = `${workload} ${concurrency} ${variant}`;
            runs.set(key, [...(runs.get(key) ?? []), row]);
            options.log(
              `guardrails, ${variant}: ${workload} c=${concurrency}: ${row.rps.toFixed(0)} req/s, ${row.cpuUsPerRequest.toFixed(0)} µs CPU/req, ${row.failures} errors`,
            );
          }
      for (const door of PACED_DOORS)
        for (const [variant, server] of pair) {
          const result = await runPacedStreams({
            port: server.port,
            spec: pacedStreamRequest(door),
            connections: 1,
            seconds: options.seconds,
            // A window releases several tokens in one delta: any token in a read counts.
            tokenPattern: /w\d+ /,
          });
          const key = `${door}\u0000${variant}`;
          paced.set(key, [...(paced.get(key) ?? []), result]);
          options.log(
            `guardrails, ${variant}: paced ${door}: first token p50 ${result.firstToken.p50.toFixed(1)} ms, ${result.failures} failures`,
          );
        }
    }
    return {
      rows: [...runs.values()].map(medianRound),
      paced: [...paced.entries()].map(([key, results]) => {
        const [door, variant] = key.split('\u0000') as [AgentDoor, string];
        const sorted = [...results].sort((a, b) => a.firstToken.p50 - b.firstToken.p50);
        return { door, variant, result: sorted[Math.floor(sorted.length / 2)] as PacedResult };
      }),
    };
  } finally {
    for (const [, server] of pair) await server.stop();
  }
}

const f0 = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(0));
const f1 = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(1));
const p50 = (summary: LatencySummary | undefined) => f1(summary?.p50);
/**
 * The window's bound in this run, from the stream without guards: the time from its first token
 * to its `WINDOW`th character (its gaps at the mean gap seen), or to its end when it is shorter
 * (then the window lets the text go when the upstream ends it).
 */
function windowMs(off: PacedResult): number {
  const gaps = pacedWindowGaps(WINDOW);
  return gaps === undefined ? off.end.p50 - off.firstToken.p50 : gaps * off.tokenGap.mean;
}

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

export interface GuardrailCheck {
  what: string;
  figure: string;
  met: boolean;
}

/** Each row's CPU against the +15% budget, and each paced door's added first token against the window. */
export function guardrailChecks(results: GuardrailResults): GuardrailCheck[] {
  const checks: GuardrailCheck[] = [];
  for (const on of results.rows.filter((row) => row.variant === ON)) {
    const off = results.rows.find(
      (row) => row.variant === OFF && row.workload === on.workload && row.concurrency === on.concurrency,
    );
    if (off === undefined) continue;
    const rise = on.cpuUsPerRequest / off.cpuUsPerRequest - 1;
    checks.push({
      what: `${on.workload} c=${on.concurrency}: CPU per request at most ${CPU_BUDGET * 100}% over no guards`,
      figure: `${f0(off.cpuUsPerRequest)} → ${f0(on.cpuUsPerRequest)} µs (${rise >= 0 ? '+' : ''}${(rise * 100).toFixed(1)}%)`,
      met: rise <= CPU_BUDGET,
    });
  }
  for (const door of PACED_DOORS) {
    const off = results.paced.find((row) => row.door === door && row.variant === OFF);
    const on = results.paced.find((row) => row.door === door && row.variant === ON);
    if (off === undefined || on === undefined) continue;
    const added = on.result.firstToken.p50 - off.result.firstToken.p50;
    const bound = windowMs(off.result);
    checks.push({
      what: `paced stream, ${door}: first token late by at most the window (${WINDOW} characters: ${f1(bound)} ms of this run's stream)`,
      figure: `+${f1(added)} ms`,
      met: added <= bound,
    });
  }
  return checks;
}

/** The report's section: the targets, then CPU and first byte side by side, then the paced first token. */
export function guardrailSection(results: GuardrailResults): string {
  const checks = guardrailChecks(results);
  const cpuRows = results.rows
    .filter((row) => row.variant === ON)
    .map((on) => {
      const off = results.rows.find(
        (row) => row.variant === OFF && row.workload === on.workload && row.concurrency === on.concurrency,
      );
      const stream = STREAM_WORKLOADS.includes(on.workload);
      return [
        on.workload,
        String(on.concurrency),
        f0(off?.cpuUsPerRequest),
        f0(on.cpuUsPerRequest),
        off === undefined ? '–' : `${((on.cpuUsPerRequest / off.cpuUsPerRequest - 1) * 100).toFixed(1)}%`,
        f0(off?.rps),
        f0(on.rps),
        stream ? p50(off?.firstByte) : '–',
        stream ? p50(on.firstByte) : '–',
      ];
    });
  const pacedRows = PACED_DOORS.map((door) => {
    const off = results.paced.find((row) => row.door === door && row.variant === OFF)?.result;
    const on = results.paced.find((row) => row.door === door && row.variant === ON)?.result;
    return [
      door,
      p50(off?.firstToken),
      p50(on?.firstToken),
      off === undefined || on === undefined ? '–' : f1(on.firstToken.p50 - off.firstToken.p50),
      off === undefined ? '–' : f1(windowMs(off)),
      `${off?.streams ?? 0} / ${on?.streams ?? 0}`,
    ];
  });
  return [
    '## Guardrails: the built-in detectors on input and output (CONTRACT 6.6)',
    '',
    `The same gateway without guardrails and with the bench app's guards: secrets and personal data, mask, on input and output (a ${WINDOW}-character hold-back window on streams). Interleaved rounds, the median of each.`,
    '',
    table(
      ['target', 'figure', 'met'],
      checks.map((check) => [check.what, check.figure, check.met ? 'yes' : '**no**']),
    ),
    '',
    table(
      [
        'workload',
        'conc',
        'CPU µs/req, off',
        'CPU µs/req, on',
        'CPU added',
        'req/s, off',
        'req/s, on',
        'first byte p50 ms, off',
        'first byte p50 ms, on',
      ],
      cpuRows,
    ),
    '',
    `A paced stream (the first token after ${PACED_STREAM.firstTokenMs} ms, then one every ${PACED_STREAM.gapMs} ms, ${PACED_STREAM.tokens} tokens), one connection: the first read that holds a token. The window's bound is the time the upstream takes to write ${WINDOW} characters after its first token, or to end its answer when that is shorter (this answer is: ${PACED_STREAM.tokens} tokens of 3-4 characters), as the run without guards saw it (timers run late on a loaded machine).`,
    '',
    table(
      [
        'door',
        'first token p50 ms, off',
        'first token p50 ms, on',
        'added ms',
        'bound ms',
        'streams off / on',
      ],
      pacedRows,
    ),
  ].join('\n');
}
