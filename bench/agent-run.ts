import { type AgentCheck, agentChecks, agentSection } from './agent-report.ts';
import { type AgentResults, measureAgentWorkloads } from './agent-workloads.ts';
import type { Server } from './processes.ts';

/** Starts a gateway on the run's mock: `env` is added to the bench's gateway environment, `root` another checkout. */
export type StartGateway = (
  name: string,
  extra: { env?: Record<string, string>; root?: URL },
) => Promise<Server>;

/** Slot C on the simulated provider, A and B still on the mock (the head-of-line case). */
export const SIMULATED_SLOT_C: Record<string, string> = {
  PROVIDER_C_KIND: 'simulated',
  PROVIDER_C_BASE_URL: '',
  PROVIDER_C_API_KEY: '',
  PROVIDER_C_CHAT_MODEL: '',
  PROVIDER_C_EMBED_MODEL: '',
};

/**
 * The agent-shaped workloads (bench/agent-workloads.ts) on gateways of their own: this commit's,
 * this commit's with a worker per CPU when `workers` names it, and a baseline's when one is given,
 * each twice (slots on the mock; slot C simulated).
 */
export async function runAgentWorkloads(options: {
  start: StartGateway;
  forwarder: Server;
  thisCommit: string;
  baseline?: { label: string; root: URL };
  /** Also this commit with a worker per CPU (`GATEWAY_WORKERS=auto`), labelled so. */
  workers?: string;
  concurrencies: readonly number[];
  seconds: number;
  rounds: number;
  log: (line: string) => void;
}): Promise<{ results: AgentResults; checks: AgentCheck[]; section: string }> {
  const targets: [string, URL | undefined, Record<string, string>][] = [[options.thisCommit, undefined, {}]];
  if (options.workers !== undefined) targets.push([options.workers, undefined, { GATEWAY_WORKERS: 'auto' }]);
  if (options.baseline !== undefined) targets.push([options.baseline.label, options.baseline.root, {}]);
  const gateways: [string, Server][] = [];
  const simulatedGateways: [string, Server][] = [];
  for (const [label, root, env] of targets) {
    const at = root === undefined ? {} : { root };
    gateways.push([label, await options.start(`agent-${gateways.length}`, { ...at, env })]);
    simulatedGateways.push([
      label,
      await options.start(`agent-simulated-${simulatedGateways.length}`, {
        ...at,
        env: { ...env, ...SIMULATED_SLOT_C },
      }),
    ]);
  }
  try {
    const results = await measureAgentWorkloads({
      forwarder: options.forwarder,
      gateways,
      simulatedGateways,
      concurrencies: options.concurrencies,
      seconds: options.seconds,
      rounds: options.rounds,
      log: options.log,
    });
    const checks = agentChecks(results, options.thisCommit);
    return { results, checks, section: agentSection(results, checks) };
  } finally {
    for (const [, server] of [...gateways, ...simulatedGateways]) await server.stop();
  }
}
