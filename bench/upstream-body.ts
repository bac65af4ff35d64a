import { jsonBody } from '../src/gateway/providers/http/json-body-bytes.ts';
import { agentConversation } from './agent-scenarios.ts';

/**
 * `node bench/upstream-body.ts [--rounds=5]`: an upstream request's body from the agent
 * conversation's 100 turns (bench/agent-workloads.ts, growing to 100k tokens), made the way
 * undici was handed it before (`JSON.stringify`, which undici turns into a Buffer) and as
 * `jsonBody` makes it now; user and system CPU per turn, in this one process, rounds
 * interleaved. Start it with `npm start`'s flags to see what the gateway sees:
 * `MALLOC_ARENA_MAX=2 node --max-semi-space-size=16 --heap-growing-percent=100 bench/upstream-body.ts`.
 */
const rounds = Number(/--rounds=(\d+)/.exec(process.argv.join(' '))?.[1] ?? 5);
const conversation = agentConversation(100, 100_000);
const bodies: unknown[] = [];
for (let turn = 0; turn < conversation.turns; turn++) bodies.push(JSON.parse(conversation.body(turn)));

const ways: [string, (body: unknown) => unknown][] = [
  ['JSON.stringify, then Buffer.from (before)', (body) => Buffer.from(JSON.stringify(body))],
  ['jsonBody (now)', (body) => jsonBody(body)],
];
const results = new Map<string, { user: number[]; system: number[] }>(
  ways.map(([name]) => [name, { user: [], system: [] }]),
);
for (const [, make] of ways) for (const body of bodies) make(body);
for (let round = 0; round < rounds; round++) {
  for (const [name, make] of ways) {
    const start = process.cpuUsage();
    for (const body of bodies) make(body);
    const used = process.cpuUsage(start);
    results.get(name)?.user.push(used.user / bodies.length);
    results.get(name)?.system.push(used.system / bodies.length);
  }
}
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
process.stdout.write(
  `| way | user µs per turn, median | system µs per turn, median |\n| --- | ---: | ---: |\n`,
);
for (const [name, { user, system }] of results)
  process.stdout.write(`| ${name} | ${median(user).toFixed(0)} | ${median(system).toFixed(0)} |\n`);
