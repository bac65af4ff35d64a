import { join } from 'node:path';
import { gatewayEnv } from './gateway-env.ts';
import { cpuMsByThreadName } from './proc-stats.ts';
import { freePort, type Server, startCommand, startForwarder, startGateway } from './processes.ts';

/**
 * The thin forwarder (on npm start's V8 flags, so that the two differ by their code only) or the
 * gateway as the bench runs it, in front of `mock`; the gateway keeps its data and log in `dir`
 * under `tag`.
 */
export async function startChatTarget(
  target: 'forwarder' | 'gateway',
  mock: Server,
  dir: string,
  tag: string,
): Promise<Server> {
  const start = startCommand();
  if (target === 'forwarder') return await startForwarder(mock, 'forwarder', start.nodeArgs, start.env);
  return await startGateway({
    env: gatewayEnv(await freePort(), mock.port, join(dir, `data-${tag}`)),
    logFile: join(dir, `gateway-${tag}.log`),
  });
}

/** Each thread's CPU µs a request (by thread name, the main one `main`) while `load` sends `requests`. */
export async function threadCpuOver(
  pid: number,
  requests: number,
  load: () => Promise<void>,
): Promise<[name: string, us: number][]> {
  const before = cpuMsByThreadName(pid);
  await load();
  const after = cpuMsByThreadName(pid);
  return [...after].map(([name, ms]) => [name, ((ms - (before.get(name) ?? 0)) * 1000) / requests]);
}
