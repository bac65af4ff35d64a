import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import { buildApplication } from './app.ts';
import { ConfigError } from './config/config-error.ts';
import { loadConfig } from './config/load-config.ts';
import { messageWithCauses } from './platform/error-chain.ts';
import { exitWith } from './platform/exit-process.ts';
import { createLogger } from './platform/logger.ts';
import { reclaimStartUpMemory } from './platform/reclaim-start-up-memory.ts';
import { letWorkersSizeTheirYoungGeneration } from './platform/worker-young-generation.ts';
import { runPrimary } from './workers/run-primary.ts';
import { runWorker } from './workers/run-worker.ts';

const REQUIRED_NODE_MAJOR = 24;

function listeningPort(app: FastifyInstance): number | undefined {
  const address = app.server.address();
  return typeof address === 'object' && address !== null ? address.port : undefined;
}

async function main(): Promise<void> {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < REQUIRED_NODE_MAJOR) {
    console.error(
      `Node.js ${REQUIRED_NODE_MAJOR}+ is required (this is ${process.version}); run through npm: npm start`,
    );
    exitWith(1);
    return;
  }
  letWorkersSizeTheirYoungGeneration();
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      exitWith(2);
      return;
    }
    throw error;
  }
  const logger = createLogger({ level: config.logLevel });
  // Several workers (CONTRACT 6.8): this process is their primary, or one of them.
  if (config.workers > 1) {
    if (cluster.isPrimary) await runPrimary(config, logger);
    else await runWorker(config, logger);
    return;
  }
  const app = await buildApplication(config, logger);
  reclaimStartUpMemory();

  if (app.gateway !== undefined) {
    await app.gateway.listen({ port: config.gatewayPort, host: config.host });
    logger.info(
      { surface: 'gateway', port: listeningPort(app.gateway), url: config.publicGatewayUrl },
      'gateway (surface A) listening',
    );
  }
  if (app.site !== undefined) {
    await app.site.listen({ port: config.sitePort, host: config.host });
    logger.info(
      { surface: 'site', port: listeningPort(app.site), url: config.publicSiteUrl },
      'site (surface B) listening',
    );
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    try {
      await app.close();
      logger.info('shutdown complete');
      exitWith(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      exitWith(1);
    }
    // Log lines wait up to 100 ms in a batch (platform/logger.ts): hand on the last ones now.
    logger.flush();
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  // A worker's channel to its primary would hold its event loop open past its error. Through the
  // worker's own disconnect, not process.disconnect(): cluster ends a worker whose channel closes
  // unasked with status 0, and the primary passes a worker's status on.
  if (cluster.isWorker && process.connected) cluster.worker?.disconnect();
  if (error instanceof ConfigError) {
    console.error(error.message);
    exitWith(2);
    return;
  }
  console.error('start-up failed:', messageWithCauses(error));
  exitWith(1);
});
