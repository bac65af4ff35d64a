import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { ApiError } from '../../platform/errors.ts';
import type { BatchRecord } from '../../storage/batch-store.ts';
import { toAnthropicErrorBody } from '../doors/anthropic/anthropic-error-body.ts';
import { doorErrorHandler } from '../doors/door-error-handler.ts';
import type { TypedInstance } from '../http/typed-instance.ts';
import { type BatchDeps, pageSize } from './batch-deps.ts';
import { readResultRows } from './file-content.ts';
import { makeMessageBatch, newLedgerId } from './make-batch.ts';
import { readMessageBatchRequests, toAnthropicBatch, toAnthropicResultLine } from './to-anthropic-batch.ts';

/** The longest page a list answers, as the vendor's. */
const LIST_MAX = 1000;

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
const CreateBody = Type.Object({ requests: Type.Array(Type.Unknown()) });
const ListQuery = Type.Object({
  after_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })),
});

/**
 * Anthropic's Message Batches (CONTRACT 6.7) in a context of their own whose errors are
 * Anthropic's shape: create (the requests in one JSON body, bounded by
 * `batches.maxMessageBatchBytes`), read, list, results (JSON Lines, once the batch ended) and
 * cancel. A batch belongs to the app that made it; another app gets 404.
 */
export async function registerMessageBatchRoutes(v1: TypedInstance, deps: BatchDeps): Promise<void> {
  await v1.register(async (door: TypedInstance) => {
    door.setErrorHandler(
      doorErrorHandler((error, request) =>
        toAnthropicErrorBody(error.toEnvelope(), error.statusCode, String(request.id)),
      ),
    );
    const find = async (app: string, id: string): Promise<BatchRecord> => {
      const batch = await deps.store.getBatch(app, id);
      if (batch === undefined || batch.flavor !== 'anthropic')
        throw new ApiError('not_found', `no message batch '${id.slice(0, 200)}'`);
      return batch;
    };
    const show = (batch: BatchRecord) => toAnthropicBatch(batch, deps.publicUrl);
    const bodyLimit = deps.settings.maxMessageBatchBytes;
    door.post(
      '/v1/messages/batches',
      { bodyLimit, schema: { hide: true, body: CreateBody } },
      async (request) => {
        const app = request.appName;
        const max = deps.settings.maxRequestsPerFile;
        const items = readMessageBatchRequests(request.body.requests, app, max, deps.modelAllowed, () =>
          newLedgerId('/v1/messages'),
        );
        return show(await makeMessageBatch(app, items, deps));
      },
    );
    door.get('/v1/messages/batches/:id', { schema: { hide: true, params: IdParams } }, async (request) =>
      show(await find(request.appName, request.params.id)),
    );
    door.get('/v1/messages/batches', { schema: { hide: true, querystring: ListQuery } }, async (request) => {
      const limit = pageSize(request.query.limit, LIST_MAX);
      const batches = await deps.store.listBatches(
        request.appName,
        'anthropic',
        limit + 1,
        request.query.after_id,
      );
      const page = batches.slice(0, limit).map(show);
      return {
        data: page,
        has_more: batches.length > limit,
        first_id: page[0]?.id ?? null,
        last_id: page.at(-1)?.id ?? null,
      };
    });
    door.get(
      '/v1/messages/batches/:id/results',
      { schema: { hide: true, params: IdParams } },
      async (request, reply) => {
        const batch = await find(request.appName, request.params.id);
        if (show(batch).processing_status !== 'ended')
          throw new ApiError(
            'invalid_request',
            `message batch '${batch.id}' has not ended; its results are not ready`,
          );
        reply.type('application/binary');
        return reply.send(Readable.from(resultLines(deps, batch.id)));
      },
    );
    door.post(
      '/v1/messages/batches/:id/cancel',
      { schema: { hide: true, params: IdParams } },
      async (request) => {
        const batch = await find(request.appName, request.params.id);
        return show((await deps.store.cancelBatch(request.appName, batch.id, deps.clock.now())) ?? batch);
      },
    );
  });
}

async function* resultLines(deps: BatchDeps, batchId: string): AsyncGenerator<string> {
  for await (const row of readResultRows(deps.store, batchId)) yield toAnthropicResultLine(row);
}
