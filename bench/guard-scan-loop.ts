import { parseArgs } from 'node:util';
import type { GuardSettings } from '../src/config/guardrail-settings.ts';
import { PERSONAL_DATA_TYPES, SECRET_TYPES } from '../src/gateway/guardrails/built-in-detectors.ts';
import { compileGuards } from '../src/gateway/guardrails/compile-guards.ts';
import { outcomesHere, ScanThread } from '../src/gateway/guardrails/scan-thread.ts';
import { logLines, randomText } from './hostile-bodies.ts';

/**
 * `node bench/guard-scan-loop.ts`: how long the event loop is held by the input scan of a large
 * body with the built-in guards (secrets and personal data, mask), scanned on the loop against
 * handed to the scan thread (the texts cloned and posted; the loop is free while the thread reads).
 * In one process, medians of `--runs`; CPU-bound, so a loaded machine stretches both columns alike.
 */
const { values } = parseArgs({
  options: { runs: { type: 'string', default: '9' }, mib: { type: 'string', default: '1' } },
});
const runs = Number(values.runs);
const chars = Number(values.mib) * 1024 * 1024;
const settings = [
  { name: 'secrets', type: 'secrets', phases: ['input'], action: 'mask', detectors: SECRET_TYPES },
  { name: 'pii', type: 'pii', phases: ['input'], action: 'mask', detectors: PERSONAL_DATA_TYPES },
] as unknown as GuardSettings[];
const guards = compileGuards(settings);
const thread = new ScanThread(settings);
const median = (samples: number[]) =>
  [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] as number;
// As a request body's parse leaves them: flat strings.
const bodies: [string, string][] = [
  ['log lines (numbers, addresses, cards)', JSON.parse(JSON.stringify(logLines(chars)))],
  ['random printable text', JSON.parse(JSON.stringify(randomText(chars, 1)))],
  [
    'prose without digits',
    JSON.parse(JSON.stringify('The agent read the module and wrote a summary of it. '.repeat(chars / 52))),
  ],
];
process.stdout.write(
  `| ${values.mib} MiB body | loop held, scanned on the loop (ms) | loop held, handed to the thread (ms) | thread's answer after (ms) |\n|---|---:|---:|---:|\n`,
);
for (const [name, text] of bodies) {
  const inline: number[] = [];
  const held: number[] = [];
  const answered: number[] = [];
  await thread.outcomes(guards, [text]); // starts the thread and warms both sides
  for (let run = 0; run < runs; run++) {
    let start = performance.now();
    outcomesHere(guards, [text]);
    inline.push(performance.now() - start);
    start = performance.now();
    const pending = thread.outcomes(guards, [text]);
    held.push(performance.now() - start);
    await pending;
    answered.push(performance.now() - start);
  }
  process.stdout.write(
    `| ${name} | ${median(inline).toFixed(1)} | ${median(held).toFixed(2)} | ${median(answered).toFixed(1)} |\n`,
  );
}
await thread.close();
