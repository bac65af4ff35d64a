import { PACED_STREAM } from './agent-scenarios.ts';
import type { AgentResults, PacedRow } from './agent-workloads.ts';

/** The agent-shaped workloads' section of the bench report (issue 33's measures and targets). */

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');
const signed = (value: number) =>
  Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(2)}` : 'n/a';

/** The targets on these workloads. */
export const AGENT_TARGETS = { addedGapP99Ms: 0.5, gapConcurrency: 64, headOfLineRiseMs: 2 };

export interface AgentCheck {
  what: string;
  measured: string;
  met: boolean;
}

/** The forwarder's row at `row`'s concurrency that moved the same wire format. */
function forwarderRow(results: AgentResults, row: PacedRow): PacedRow | undefined {
  return results.paced.find(
    (other) => other.door === 'forwarder' && other.concurrency === row.concurrency && other.wire === row.wire,
  );
}

/** The door as the table names it: the forwarder's row says which stream it moved. */
const doorLabel = (row: PacedRow) =>
  row.door === 'forwarder' && row.wire === 'messages' ? 'forwarder (Messages stream)' : row.door;

export function agentChecks(results: AgentResults, gateway: string): AgentCheck[] {
  const checks: AgentCheck[] = [];
  for (const row of results.paced) {
    const forwarder = forwarderRow(results, row);
    if (
      row.gateway !== gateway ||
      row.concurrency !== AGENT_TARGETS.gapConcurrency ||
      forwarder === undefined
    )
      continue;
    const added = row.tokenGap.p99 - forwarder.tokenGap.p99;
    checks.push({
      what: `added token-gap p99 at ${row.concurrency} streams, ${row.door} door ≤ ${AGENT_TARGETS.addedGapP99Ms} ms`,
      measured: `${signed(added)} ms`,
      met: added <= AGENT_TARGETS.addedGapP99Ms,
    });
  }
  for (const row of results.headOfLine) {
    if (row.gateway !== gateway) continue;
    // The forwarder's row on the same wire: Messages for the relay lane, chat for the others.
    const floorSlot = row.slot === 'relay' ? 'relay' : 'upstream';
    const floor = results.headOfLine.find(
      (other) => other.gateway === 'forwarder' && other.slot === floorSlot,
    );
    const rise = row.beside.p99 - row.alone.p99;
    const floorRise = floor === undefined ? 0 : floor.beside.p99 - floor.alone.p99;
    checks.push({
      what: `small requests' p99 rise beside 1 MiB prompts, ${row.slot} slot, over the forwarder's ≤ ${AGENT_TARGETS.headOfLineRiseMs} ms`,
      measured: `${signed(rise - floorRise)} ms (${signed(rise)} against the forwarder's ${signed(floorRise)})`,
      met: rise - floorRise <= AGENT_TARGETS.headOfLineRiseMs,
    });
  }
  return checks;
}

function pacedTable(results: AgentResults): string {
  const lines = [
    '| server | door | streams | first token p50 / p99 ms | added first token p50 / p99 ms | token gap p99 ms | added gap p99 ms | failures |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const concurrencies = [...new Set(results.paced.map((row) => row.concurrency))];
  for (const concurrency of concurrencies) {
    lines.push(`| **c=${concurrency}** | | | | | | | |`);
    for (const row of results.paced.filter((r) => r.concurrency === concurrency)) {
      const forwarder = forwarderRow(results, row);
      const isForwarder = row.door === 'forwarder';
      const added = (a: number, b: number | undefined) =>
        isForwarder || b === undefined ? '' : signed(a - b);
      lines.push(
        `| ${row.gateway} | ${doorLabel(row)} | ${row.streams} | ${ms(row.firstToken.p50)} / ${ms(row.firstToken.p99)} | ` +
          `${added(row.firstToken.p50, forwarder?.firstToken.p50)}${isForwarder ? '' : ' / '}${added(row.firstToken.p99, forwarder?.firstToken.p99)} | ` +
          `${ms(row.tokenGap.p99)} | ${added(row.tokenGap.p99, forwarder?.tokenGap.p99)} | ${row.failures} |`,
      );
    }
  }
  return lines.join('\n');
}

function headOfLineTable(results: AgentResults): string {
  const lines = [
    '| gateway | slot | small requests p99 alone ms | beside 1 MiB prompts ms | rise ms | over the rounds | 1 MiB prompts answered |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const row of results.headOfLine)
    lines.push(
      `| ${row.gateway} | ${row.slot} | ${ms(row.alone.p99)} | ${ms(row.beside.p99)} | ${signed(row.beside.p99 - row.alone.p99)} | ` +
        `${row.riseRange === undefined ? '' : row.riseRange.map(signed).join(' to ')} | ${row.hugeAnswered} |`,
    );
  return lines.join('\n');
}

function conversationTable(results: AgentResults): string {
  const forwarder = results.conversation.find((row) => row.server === 'forwarder');
  const lines = [
    "| server | turns | last turn's prompt | CPU µs per turn | over the rounds | × forwarder | latency p50 / p99 ms | failures |",
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const row of results.conversation)
    lines.push(
      `| ${row.server} | ${row.turns} | ~${Math.round(row.lastTokens / 1000)}k tokens | ${row.cpuUsPerTurn.toFixed(0)} | ` +
        `${row.cpuRange === undefined ? '' : row.cpuRange.map((us) => us.toFixed(0)).join('-')} | ` +
        `${forwarder === undefined ? '' : (row.cpuUsPerTurn / forwarder.cpuUsPerTurn).toFixed(2)} | ` +
        `${ms(row.latency.p50)} / ${ms(row.latency.p99)} | ${row.failures} |`,
    );
  return lines.join('\n');
}

export function agentSection(results: AgentResults, checks: readonly AgentCheck[]): string {
  const missing = results.missingDoors.map(({ gateway, door }) => `${door} on ${gateway}`);
  return [
    '## Agent-shaped workloads',
    '',
    `Streams whose upstream answers as a model does: the first token after ${PACED_STREAM.firstTokenMs} ms, then one every ${PACED_STREAM.gapMs} ms, ${PACED_STREAM.tokens} tokens; each door of the gateway asked for the same upstream stream, the forwarder for the upstream's own. The anthropic door runs twice: \`anthropic\` on an OpenAI slot (the cross-vendor lane, the door writing its own events) and \`anthropic-relay\` on the anthropic slot (the same-vendor lane, the upstream's events passed on with the cost added), whose upstream stream is Anthropic's, so its added figures are against the forwarder moving that same Messages stream. "First token" is the first read that holds a token (a door may write a start event before it); "gap" is the time between reads that hold tokens. Added = the gateway's figure minus the forwarder's at the same concurrency.`,
    ...(missing.length === 0
      ? []
      : ['', `Doors that answered 404 (not built at that commit): ${missing.join(', ')}.`]),
    '',
    pacedTable(results),
    '',
    "Head-of-line: 8 connections of small chats on the OpenAI door, alone and while 2 connections send 1 MiB prompts to the same slot (the simulated slot counts the prompt's tokens itself; the upstream slot sends it to the mock); `relay`: the same with Messages requests on the Anthropic door's same-vendor lane (the anthropic slot, the body passed on as bytes), against the forwarder moving the same Messages requests. The forwarder's row is the machine's own rise: the load generator and the mock read and write the same megabytes on the same cores; the target is the gateway's rise over it. Run in rounds (every case in turn within each), the median round by rise shown, with the range over the rounds.",
    '',
    headOfLineTable(results),
    '',
    "A long agent conversation on the OpenAI door: one client, turn after turn, each request the whole history (a 2k-token system prompt, eight tools, then per turn a user line, a tool call and a tool result), growing to about 100k tokens. Run once to warm, then in rounds (the servers in turn within each), the median round by CPU per turn shown; CPU is the server process's.",
    '',
    conversationTable(results),
    '',
    '| target | measured | met |',
    '|---|---|---|',
    ...checks.map((check) => `| ${check.what} | ${check.measured} | ${check.met ? 'yes' : 'no'} |`),
  ].join('\n');
}
