import type { FastifyInstance } from 'fastify';
import type { Logger } from '../../platform/logger.ts';
import type { BatchTickets } from '../http/batch-tickets.ts';
import type { TypedInstance } from '../http/typed-instance.ts';
import type { BatchDeps } from './batch-deps.ts';
import { BatchRunner } from './batch-runner.ts';
import type { LiveTraffic } from './live-traffic.ts';
import { registerMessageBatchRoutes } from './message-batch-routes.ts';
import { registerOpenAIBatchRoutes } from './openai-batch-routes.ts';
import { vendorApis } from './vendor-apis.ts';
import { VendorBatches, type VendorDeps } from './vendor-batches.ts';

/** OpenAI's Files and Batch APIs and Anthropic's Message Batches, inside the authenticated /v1 scope. */
export async function registerBatchRoutes(v1: TypedInstance, deps: BatchDeps): Promise<void> {
  await registerOpenAIBatchRoutes(v1, deps);
  await registerMessageBatchRoutes(v1, deps);
}

/**
 * The instance's batch runner, started once the app is ready and stopped before it closes (its
 * requests go through the app itself, which must still be open for them to finish).
 */
export function runBatches(
  app: FastifyInstance,
  deps: BatchDeps & {
    tickets: BatchTickets;
    live: LiveTraffic;
    flushLedger: () => Promise<void>;
    logger: Logger;
  },
): BatchRunner {
  const runner = new BatchRunner({
    ...deps,
    inject: async (request) => {
      const answer = await app.inject(request);
      return { statusCode: answer.statusCode, headers: answer.headers, body: answer.body };
    },
  });
  app.addHook('onReady', async () => runner.start());
  app.addHook('preClose', async () => runner.stop());
  return runner;
}

/**
 * The instance's share of submitting and polling vendor batches (vendor-batches.ts), started and
 * stopped with the app. Every instance runs one; the store's leases share the batches.
 */
export function pollVendorBatches(
  app: FastifyInstance,
  deps: Omit<VendorDeps, 'apiFor'> & { registry: Parameters<typeof vendorApis>[0] },
): VendorBatches {
  const poller = new VendorBatches({ ...deps, apiFor: vendorApis(deps.registry) });
  app.addHook('onReady', async () => poller.start());
  app.addHook('preClose', async () => poller.stop());
  return poller;
}
