import { request } from 'node:http';
import {
  AGENT_DOORS,
  type AgentDoor,
  agentConversation,
  conversationTurn,
  hugeChat,
  type PacedWire,
  pacedStreamRequest,
  pacedUpstreamRequest,
  relayMessages,
  smallChat,
  wireOf,
} from './agent-scenarios.ts';
import type { LatencySummary } from './latency-stats.ts';
import { summarise } from './latency-stats.ts';
import { runAutocannon } from './load-autocannon.ts';
import { type PacedResult, runPacedStreams } from './paced-streams.ts';
import { cpuMs } from './proc-stats.ts';
import type { Server } from './processes.ts';
import { BENCH_APP, BENCH_SECRET, type HttpRequestSpec, MOCK_API_KEY } from './scenarios.ts';

/** One paced-stream case: a door of a gateway (or the forwarder, door `forwarder`) at one concurrency. */
export interface PacedRow extends PacedResult {
  gateway: string;
  door: AgentDoor | 'forwarder';
  /** The stream's wire format upstream: a door is compared with the forwarder moving the same. */
  wire: PacedWire;
  concurrency: number;
}

/** Small chats' latency alone and while huge prompts run, on one slot of one gateway. */
export interface HeadOfLineRow {
  gateway: string;
  /** `relay`: the Anthropic door's same-vendor lane (Messages requests to the anthropic slot). */
  slot: 'upstream' | 'simulated' | 'relay';
  alone: LatencySummary;
  beside: LatencySummary;
  hugeAnswered: number;
  /** The lowest and highest rise of p99 over the rounds (this row is the median round's). */
  riseRange?: [number, number];
}

/** A long conversation's cost per turn on one server. */
export interface ConversationRow {
  server: string;
  turns: number;
  lastTokens: number;
  cpuUsPerTurn: number;
  /** The lowest and highest CPU per turn over the rounds (the row is the median round). */
  cpuRange?: readonly [number, number];
  latency: LatencySummary;
  failures: number;
}

export interface AgentResults {
  paced: PacedRow[];
  headOfLine: HeadOfLineRow[];
  conversation: ConversationRow[];
  /** Doors a gateway answered 404 for (a baseline from before the door existed). */
  missingDoors: { gateway: string; door: AgentDoor }[];
}

export interface AgentOptions {
  forwarder: Server;
  /** The gateways compared, each with its slots on the mock: this commit first, then a baseline. */
  gateways: [string, Server][];
  /** The same gateways with slot C on the simulated provider (the head-of-line case). */
  simulatedGateways: [string, Server][];
  concurrencies: readonly number[];
  seconds: number;
  rounds: number;
  log: (line: string) => void;
  /** Which workloads run (`--agent-parts`); all three by default. */
  parts?: readonly AgentPart[];
}

export type AgentPart = 'paced' | 'head-of-line' | 'conversation';

export const HUGE_PROMPT_BYTES = 1024 * 1024;
const CONVERSATION = { turns: 100, finalTokens: 100_000 };

/** The answer's status for one request (the probe that tells whether a door exists). */
function statusOf(port: number, spec: HttpRequestSpec): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: spec.path, headers: spec.headers },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(spec.body);
  });
}

/** The round with the median first-token p50, as the main tables keep the median round. */
function medianPaced(rows: PacedRow[]): PacedRow {
  return [...rows].sort((a, b) => a.firstToken.p50 - b.firstToken.p50)[
    Math.floor(rows.length / 2)
  ] as PacedRow;
}

async function measurePaced(
  options: AgentOptions,
  missing: AgentResults['missingDoors'],
): Promise<PacedRow[]> {
  const cases: {
    gateway: string;
    door: PacedRow['door'];
    wire: PacedWire;
    port: number;
    spec: ReturnType<typeof pacedStreamRequest>;
  }[] = [];
  // The forwarder moves each wire format the doors ask upstream: OpenAI's chunks for every door
  // but the Anthropic relay, whose floor is the same Messages stream passed on untouched.
  for (const wire of new Set(AGENT_DOORS.map(wireOf))) {
    const spec = pacedUpstreamRequest(wire);
    cases.push({ gateway: 'forwarder', door: 'forwarder', wire, port: options.forwarder.port, spec });
  }
  for (const [label, server] of options.gateways) {
    for (const door of AGENT_DOORS) {
      const spec = pacedStreamRequest(door);
      const status = await statusOf(server.port, spec);
      if (status === 404) missing.push({ gateway: label, door });
      else cases.push({ gateway: label, door, wire: wireOf(door), port: server.port, spec });
    }
  }
  const rows: PacedRow[] = [];
  for (const concurrency of options.concurrencies) {
    const byCase = new Map<number, PacedRow[]>();
    // Rounds take every case in turn, so what is compared shares the same minutes.
    for (let round = 0; round < options.rounds; round++) {
      for (const [index, item] of cases.entries()) {
        const result = await runPacedStreams({
          port: item.port,
          spec: item.spec,
          connections: concurrency,
          seconds: options.seconds,
        });
        const row = { ...result, gateway: item.gateway, door: item.door, wire: item.wire, concurrency };
        byCase.set(index, [...(byCase.get(index) ?? []), row]);
        options.log(
          `paced ${item.gateway} ${item.door}${item.door === 'forwarder' ? ` (${item.wire})` : ''} c=${concurrency}: first token p50 ${result.firstToken.p50.toFixed(2)} ms, ` +
            `gap p99 ${result.tokenGap.p99.toFixed(2)} ms, ${result.streams} streams, ${result.failures} failures`,
        );
      }
    }
    for (const runs of byCase.values()) rows.push(medianPaced(runs));
  }
  return rows;
}

/** Closed loops of huge chats until `stop` resolves; how many were answered. */
export async function hugeLoops(
  port: number,
  spec: HttpRequestSpec,
  loops: number,
  stop: Promise<void>,
): Promise<number> {
  let answered = 0;
  let stopped = false;
  void stop.then(() => {
    stopped = true;
  });
  const loop = async () => {
    while (!stopped) if ((await statusOf(port, spec).catch(() => 0)) === 200) answered++;
  };
  await Promise.all(Array.from({ length: loops }, loop));
  return answered;
}

async function measureHeadOfLine(options: AgentOptions): Promise<HeadOfLineRow[]> {
  const app = `${BENCH_APP}:${BENCH_SECRET}`;
  const chats = (model: string) => ({ small: smallChat(model), huge: hugeChat(model, HUGE_PROMPT_BYTES) });
  const relay = (key: string) => ({ small: relayMessages(key), huge: relayMessages(key, HUGE_PROMPT_BYTES) });
  // The forwarder first, with each wire: its rise is the machine's own (the load generator and
  // the mock reading 1 MiB bodies on the same cores), the floor under the gateways' rows.
  const cases: [string, Server, HeadOfLineRow['slot'], { small: HttpRequestSpec; huge: HttpRequestSpec }][] =
    [
      ['forwarder', options.forwarder, 'upstream', chats('gpt-4o-mini')],
      ['forwarder', options.forwarder, 'relay', relay(MOCK_API_KEY)],
    ];
  for (const [label, server] of options.simulatedGateways) {
    cases.push([label, server, 'upstream', chats('provider-a/gpt-4o-mini')]);
    cases.push([label, server, 'simulated', chats('provider-c/simulated-chat')]);
    cases.push([label, server, 'relay', relay(app)]);
  }
  // `--rounds` rounds, every case in turn within each, the median round by rise kept (one round
  // on a shared two-core machine moved the rise by 15 ms between runs).
  const byCase = new Map<string, HeadOfLineRow[]>();
  for (let round = 0; round < options.rounds; round++) {
    for (const [label, server, slot, specs] of cases) {
      const row = await headOfLineRound(options, label, server, slot, specs);
      byCase.set(`${label}/${slot}`, [...(byCase.get(`${label}/${slot}`) ?? []), row]);
    }
  }
  return [...byCase.values()].map(medianByRise);
}

const riseOf = (row: HeadOfLineRow) => row.beside.p99 - row.alone.p99;

function medianByRise(rows: HeadOfLineRow[]): HeadOfLineRow {
  const sorted = [...rows].sort((a, b) => riseOf(a) - riseOf(b));
  const median = sorted[Math.floor(sorted.length / 2)] as HeadOfLineRow;
  return {
    ...median,
    riseRange: [riseOf(sorted[0] as HeadOfLineRow), riseOf(sorted.at(-1) as HeadOfLineRow)],
  };
}

async function headOfLineRound(
  options: AgentOptions,
  label: string,
  server: Server,
  slot: HeadOfLineRow['slot'],
  specs: { small: HttpRequestSpec; huge: HttpRequestSpec },
): Promise<HeadOfLineRow> {
  const small = { port: server.port, spec: specs.small, connections: 8, seconds: options.seconds };
  // Warm both paths first: a cold first run would put the JIT's time into "alone".
  await runAutocannon({ ...small, seconds: 1 });
  await statusOf(server.port, specs.huge);
  const alone = await runAutocannon(small);
  let release = () => {};
  const stop = new Promise<void>((resolve) => {
    release = resolve;
  });
  const huge = hugeLoops(server.port, specs.huge, 2, stop);
  // Let the first huge prompts arrive before the small requests are timed.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const beside = await runAutocannon(small);
  release();
  const hugeAnswered = await huge;
  options.log(
    `head-of-line ${label} ${slot}: small requests p99 ${alone.latency.p99.toFixed(2)} ms alone, ` +
      `${beside.latency.p99.toFixed(2)} ms beside ${hugeAnswered} 1 MiB prompts`,
  );
  return { gateway: label, slot, alone: alone.latency, beside: beside.latency, hugeAnswered };
}

/** One long conversation, turn after turn, with the server's CPU and each turn's latency. */
export async function runConversation(
  server: string,
  port: number,
  pid: number,
  target: 'gateway' | 'upstream',
): Promise<ConversationRow> {
  const conversation = agentConversation(CONVERSATION.turns, CONVERSATION.finalTokens);
  const latencies: number[] = [];
  let failures = 0;
  const before = cpuMs(pid);
  for (let turn = 0; turn < conversation.turns; turn++) {
    const spec = conversationTurn(conversation.body(turn), target);
    const sent = performance.now();
    const status = await statusOf(port, spec).catch(() => 0);
    latencies.push(performance.now() - sent);
    if (status !== 200) failures++;
  }
  const cpu = cpuMs(pid) - before;
  return {
    server,
    turns: conversation.turns,
    lastTokens: Math.round(conversation.lastChars / 4),
    cpuUsPerTurn: (cpu * 1000) / conversation.turns,
    latency: summarise(latencies),
    failures,
  };
}

async function measureConversation(options: AgentOptions): Promise<ConversationRow[]> {
  const servers: [string, Server, 'gateway' | 'upstream'][] = [
    ['forwarder', options.forwarder, 'upstream'],
    ...options.gateways.map(([label, server]): [string, Server, 'gateway'] => [label, server, 'gateway']),
  ];
  // Once unmeasured (the code paths warm), then `rounds` rounds, the servers in turn within each,
  // so that a busy minute falls on all of them; the median round by CPU per turn is kept.
  for (const [label, server, target] of servers)
    await runConversation(label, server.port, server.pid, target);
  const rounds = new Map<string, ConversationRow[]>(servers.map(([label]) => [label, []]));
  for (let round = 0; round < Math.max(1, options.rounds); round++) {
    for (const [label, server, target] of servers) {
      const row = await runConversation(label, server.port, server.pid, target);
      rounds.get(label)?.push(row);
      options.log(
        `conversation ${label}: ${row.cpuUsPerTurn.toFixed(0)} µs CPU per turn, p50 ${row.latency.p50.toFixed(2)} ms, ` +
          `${row.failures} failures`,
      );
    }
  }
  return servers.map(([label]) => {
    const rows = [...(rounds.get(label) ?? [])].sort((a, b) => a.cpuUsPerTurn - b.cpuUsPerTurn);
    const median = rows[Math.floor(rows.length / 2)] as ConversationRow;
    const cpu = rows.map((row) => row.cpuUsPerTurn);
    return { ...median, cpuRange: [Math.min(...cpu), Math.max(...cpu)] as const };
  });
}

/** Every agent-shaped workload of issue 33, against the gateways given and the forwarder. */
export async function measureAgentWorkloads(options: AgentOptions): Promise<AgentResults> {
  const missingDoors: AgentResults['missingDoors'] = [];
  const runs = (part: AgentPart) => options.parts === undefined || options.parts.includes(part);
  options.log('agent workloads: paced streams…');
  const paced = runs('paced') ? await measurePaced(options, missingDoors) : [];
  options.log('agent workloads: head-of-line…');
  const headOfLine = runs('head-of-line') ? await measureHeadOfLine(options) : [];
  options.log('agent workloads: a long conversation…');
  const conversation = runs('conversation') ? await measureConversation(options) : [];
  return { paced, headOfLine, conversation, missingDoors };
}
