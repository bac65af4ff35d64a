import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config-types.ts';
import { createBaseApp } from '../platform/fastify-base.ts';
import type { Logger } from '../platform/logger.ts';
import type { Storage } from '../storage/ports.ts';

export interface SiteAppDeps {
  config: Config;
  logger: Logger;
  storage: Storage;
}

/** Surface B: the public site API. */
export async function buildSiteApp(deps: SiteAppDeps): Promise<FastifyInstance> {
  const app = createBaseApp({ logger: deps.logger, maxBodyBytes: deps.config.maxBodyBytes });
  app.get('/up', (_request, reply) => reply.type('text/plain; charset=utf-8').send('ok\n'));
  app.get('/api/health', async (_request, reply) => {
    const started = performance.now();
    let storage: 'pass' | 'fail' = 'pass';
    try {
      await deps.storage.ping();
    } catch {
      storage = 'fail';
    }
    const status = storage;
    return reply.code(status === 'fail' ? 503 : 200).send({
      status,
      timestamp: new Date().toISOString(),
      checks: {
        storage: { status: storage, durationMs: Math.round((performance.now() - started) * 1000) / 1000 },
      },
    });
  });
  return app;
}
