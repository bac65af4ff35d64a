import type { FastifyInstance } from 'fastify';
import { buildApplication } from '../app.ts';
import type { Config } from '../config/config-types.ts';
import { exitWith } from '../platform/exit-process.ts';
import type { Logger } from '../platform/logger.ts';
import { reclaimStartUpMemory } from '../platform/reclaim-start-up-memory.ts';
import { RpcPeer } from '../platform/rpc-peer.ts';

/**
 * One worker of several (CONTRACT 6.8): the whole application, both surfaces, on the ports the
 * primary shares with every worker (node:cluster hands each worker connections); the shared state,
 * the embedded database and /metrics reached through the primary. SIGTERM (from the primary, or
 * the whole group's) drains it as it drains a single process; a primary that is gone ends it too.
 */
export async function runWorker(config: Config, logger: Logger): Promise<void> {
  const primary = new RpcPeer({
    send: (message) => process.send?.(message),
    onMessage: (listener) => process.on('message', listener),
  });
  const app = await buildApplication(config, logger, { worker: primary });
  reclaimStartUpMemory();
  const listen = async (surface: 'gateway' | 'site', server: FastifyInstance, port: number) => {
    await server.listen({ port, host: config.host });
    const address = server.server.address();
    primary.notify('listening', [
      surface,
      typeof address === 'object' && address !== null ? address.port : port,
    ]);
  };
  if (app.gateway !== undefined) await listen('gateway', app.gateway, config.gatewayPort);
  if (app.site !== undefined) await listen('site', app.site, config.sitePort);

  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'worker shutting down: finishing in-flight requests');
    try {
      // The last rows reach the primary (the database's writer) before the channel closes.
      await app.close();
      exitWith(0);
    } catch (error) {
      logger.error({ err: error }, 'worker shutdown failed');
      exitWith(1);
    }
    primary.close();
    if (process.connected) process.disconnect();
    logger.flush();
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('disconnect', () => {
    primary.close();
    void stop('primary gone');
  });
}
