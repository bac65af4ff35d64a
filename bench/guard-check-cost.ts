import { parseArgs } from 'node:util';
import { PII_DETECTOR_NAMES, SECRET_DETECTOR_NAMES } from '../src/config/guardrail-settings.ts';
import { Guardrails } from '../src/gateway/guardrails/guardrails.ts';

/**
 * `node bench/guard-check-cost.ts`: what the built-in guards (secrets and personal data, mask)
 * cost a chat request in one process, without HTTP: the input check of a 55-character prompt and
 * the output check of a 150-character answer, nothing matched (issue 42: the fixed cost per
 * request, not the scan of long texts, which bench/guard-scan-loop.ts measures). Nanoseconds per
 * request, each round's mean over `--requests`; CPU-bound, so a loaded machine stretches it.
 */
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '5' },
  },
});

const guardrails = new Guardrails({
  guards: [
    {
      name: 'bench-secrets',
      type: 'secrets',
      phases: ['input', 'output'],
      action: 'mask',
      detectors: [...SECRET_DETECTOR_NAMES],
    },
    {
      name: 'bench-pii',
      type: 'pii',
      phases: ['input', 'output'],
      action: 'mask',
      detectors: [...PII_DETECTOR_NAMES],
    },
  ],
  apps: { bench: ['bench-secrets', 'bench-pii'] },
  teams: {},
  routes: {},
});
const guards = guardrails.guardsFor({ app: 'bench', team: undefined, task: undefined });
if (guards === undefined) throw new Error('no guards');
const PROMPT = 'Say hello to the world in one short sentence, please now.';
const ANSWER =
  'Hello, world! This is a simulated answer from the gateway with a few words in it, written to be about one hundred and fifty characters long ok.';

const requests = Number(values.requests);
const figures: number[] = [];
for (let round = 0; round < Number(values.rounds); round++) {
  const started = process.hrtime.bigint();
  for (let index = 0; index < requests; index++) {
    await guardrails.checkNow('input', guards.input, [PROMPT], guards.context);
    await guardrails.checkNow('output', guards.output, [ANSWER], guards.context);
  }
  figures.push(Number(process.hrtime.bigint() - started) / requests);
}
await guardrails.close();
figures.sort((a, b) => a - b);
console.log(
  `input check of ${PROMPT.length} characters and output check of ${ANSWER.length}, built-in guards, nothing matched: ` +
    `${figures.map((figure) => figure.toFixed(0)).join(', ')} ns per request (rounds, sorted)`,
);
