import cluster, { type Worker } from 'node:cluster';
import { seedApps } from '../app.ts';
import type { Config } from '../config/config-types.ts';
import { systemClock } from '../platform/clock.ts';
import { exitWith } from '../platform/exit-process.ts';
import type { Logger } from '../platform/logger.ts';
import { Coordinator } from '../storage/coordinator/coordinator.ts';
import { openStorage } from '../storage/open-storage.ts';

type Surface = 'gateway' | 'site';
const SURFACE_NAMES: Record<Surface, string> = { gateway: 'gateway (surface A)', site: 'site (surface B)' };
/** Past the workers' own grace period, a worker still draining is ended. */
const DRAIN_MARGIN_MS = 5_000;

/**
 * The primary of `config.workers` worker processes (CONTRACT 6.8, decision 0031). It serves no
 * request itself: it opens the database (migrations, seeds) before any worker starts, holds what
 * the workers share (coordinator.ts), forks them, replaces one that dies (its requests' rows
 * written, its leases released) and on SIGTERM or SIGINT drains them all before closing the
 * database. A worker that dies before it ever listened stops start-up: the error is its own
 * (a port in use, a bad provider), and forking it again would only repeat it.
 */
export async function runPrimary(config: Config, logger: Logger): Promise<void> {
  // Redis unreachable stops start-up within 10 s (CONTRACT 4.5): the primary asks once, before any
  // worker spends its start-up on finding out (two at once took 13 s on a loaded machine).
  // ioredis is imported only then: an instance without Redis never loads it.
  if (config.redisUrl !== undefined) {
    const { connectRedis } = await import('../storage/redis/redis-client.ts');
    (await connectRedis(config.redisUrl)).disconnect();
  }
  const storage = await openStorage(config);
  await seedApps(storage, config, logger, systemClock);
  const coordinator = new Coordinator({
    circuit: config.circuit,
    responseCacheMaxBytes: config.responseCache.maxBytes,
    storage,
    serveStorage: config.databaseUrl === undefined,
    logger: logger.child({ component: 'workers' }),
  });
  // Structured clone on the channel: ledger rows and stored responses cross it as they are.
  cluster.setupPrimary({ serialization: 'advanced' });
  const surfaces = (['gateway', 'site'] as const).filter((surface) => config.surfaces[surface]);
  const listening = new Map<Surface, { port: number; workers: Set<number> }>();
  const everListened = new Set<number>();
  // The workers whose process has not exited. cluster.workers keeps a worker until its IPC channel
  // has also closed, which can come after its 'exit': counting on it, a primary whose last worker
  // died at start-up waited for a disconnect and never ended.
  const alive = new Set<number>();
  let announced = false;
  let othersForked = false;
  let stopping = false;

  /** `diedAt`: a replacement's predecessor's death (Date.now()), to log how long serving took again. */
  const fork = (diedAt?: number): Worker => {
    const worker = cluster.fork();
    alive.add(worker.id);
    const peer = coordinator.attach(worker.id, {
      send: (message) => {
        if (worker.isConnected()) worker.send(message as object);
      },
      onMessage: (listener) => worker.on('message', listener),
    });
    peer.handle('listening', (surface: Surface, port: number) => {
      everListened.add(worker.id);
      const entry = listening.get(surface) ?? { port, workers: new Set<number>() };
      entry.workers.add(worker.id);
      listening.set(surface, entry);
      const serving = surfaces.every((name) => listening.get(name)?.workers.has(worker.id));
      if (diedAt !== undefined && serving) {
        logger.info(
          { pid: worker.process.pid, afterMs: Date.now() - diedAt },
          'a new worker serves in place of the dead one',
        );
      }
      // The first worker's start-up is the configuration's check (site content, identity files):
      // the others start once it serves, so a bad file is one line and one exit status, not one each.
      if (!othersForked && serving) {
        othersForked = true;
        for (let i = 1; i < config.workers; i++) fork();
      }
      announceWhenAllListen();
    });
    worker.on('exit', (code, signal) => void workerExited(worker, code, signal));
    return worker;
  };

  const announceWhenAllListen = () => {
    if (announced) return;
    if (!surfaces.every((surface) => (listening.get(surface)?.workers.size ?? 0) >= config.workers)) return;
    announced = true;
    for (const surface of surfaces) {
      const port = listening.get(surface)?.port;
      const url = surface === 'gateway' ? config.publicGatewayUrl : config.publicSiteUrl;
      logger.info({ surface, port, url, workers: config.workers }, `${SURFACE_NAMES[surface]} listening`);
    }
  };

  const workerExited = async (worker: Worker, code: number | null, signal: string | null) => {
    const diedAt = Date.now();
    alive.delete(worker.id);
    for (const entry of listening.values()) entry.workers.delete(worker.id);
    const replace = !stopping && everListened.has(worker.id);
    // The replacement starts first: its start-up (seconds) runs while the lost rows are written.
    if (replace) fork(diedAt);
    const lost = await coordinator.detach(worker.id);
    if (replace) {
      logger.warn(
        { pid: worker.process.pid, code, signal, requestsLost: lost },
        'a worker died: started another',
      );
    } else if (stopping) {
      if (alive.size === 0) await finish();
    } else {
      logger.error({ pid: worker.process.pid, code, signal }, 'a worker ended before it listened: stopping');
      // The worker's own status (2: the configuration) is the process's, as with one worker.
      await stop('start-up failed', code !== null && code !== 0 ? code : 1);
    }
  };

  let exitCode = 0;
  let drainTimer: NodeJS.Timeout | undefined;
  const stop = async (reason: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    logger.info(
      { reason, workers: Object.keys(cluster.workers ?? {}).length },
      'shutting down: draining every worker',
    );
    const workers = Object.values(cluster.workers ?? {}).filter(
      (w): w is Worker => w !== undefined && alive.has(w.id),
    );
    if (workers.length === 0) {
      await finish();
      return;
    }
    for (const worker of workers) worker.process.kill('SIGTERM');
    drainTimer = setTimeout(() => {
      logger.warn('workers still draining past the grace period: ending them');
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
    }, config.shutdownGraceMs + DRAIN_MARGIN_MS);
    drainTimer.unref();
  };

  let finished = false;
  const finish = async () => {
    if (finished) return;
    finished = true;
    clearTimeout(drainTimer);
    try {
      await storage.close();
      if (exitCode === 0) logger.info('shutdown complete');
    } catch (error) {
      logger.error({ err: error }, 'closing the database failed');
      exitCode = 1;
    }
    exitWith(exitCode);
    logger.flush();
  };

  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  logger.info({ workers: config.workers }, 'starting workers');
  fork();
}
