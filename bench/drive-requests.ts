import { Agent, request } from 'node:http';
import { agentConversation, conversationTurn, relayMessages } from './agent-scenarios.ts';
import { HUGE_PROMPT_BYTES } from './agent-workloads.ts';
import { BENCH_APP, BENCH_SECRET, type HttpRequestSpec, requestFor, type Workload } from './scenarios.ts';

/**
 * A fixed number of requests to the gateway, for the benches that count what a request costs
 * (instructions, system calls) rather than time it.
 */

function send(agent: Agent, port: number, spec: HttpRequestSpec): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: '127.0.0.1', port, method: 'POST', path: spec.path, headers: spec.headers },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(spec.body);
  });
}

/** `count` requests, `concurrency` at a time; throws if one is not a 200. */
export async function drive(
  port: number,
  specs: (n: number) => HttpRequestSpec,
  count: number,
  concurrency: number,
): Promise<void> {
  const agent = new Agent({ keepAlive: true });
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const status = await send(agent, port, specs(next++));
      if (status !== 200) throw new Error(`status ${status}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
}

/**
 * The requests of a workload of bench/scenarios.ts, the same every time, or for `conversation` the
 * agent conversation's turns in order (bench/agent-workloads.ts); for `huge-relay` the head-of-line
 * case's 1 MiB Messages prompt on the Anthropic door's same-vendor lane.
 */
export function workloadSpecs(
  workload: string,
  target: 'gateway' | 'forwarder' = 'gateway',
): (n: number) => HttpRequestSpec {
  if (workload === 'huge-relay') {
    const spec = relayMessages(`${BENCH_APP}:${BENCH_SECRET}`, HUGE_PROMPT_BYTES);
    return () => spec;
  }
  if (workload !== 'conversation') {
    const spec = requestFor(target, workload as Workload);
    return () => spec;
  }
  // The conversation's turns in order, again from the first after the last.
  const turns = 100;
  let conversation = agentConversation(turns, 100_000);
  return (n) => {
    if (n % turns === 0) conversation = agentConversation(turns, 100_000);
    return conversationTurn(conversation.body(n % turns), 'gateway');
  };
}
