import { startRequestRun } from '../../http/start-request-run.ts';
import type { TypedInstance } from '../../http/typed-instance.ts';
import { writeEventStream } from '../../http/write-event-stream.ts';
import { listAddressableModels, resolveModelField } from '../../services/address-model.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import { runChat } from '../../services/run-chat.ts';
import { openChatStream } from '../../services/run-chat-stream.ts';
import { runEmbed } from '../../services/run-embed.ts';
import { type JsonAnswer, runJson } from '../../services/run-json.ts';
import { validateToolRequest } from '../../services/validate-tool-request.ts';
import { doorErrorHandler } from '../door-error-handler.ts';
import { embeddingsBody, toEmbedInput } from './openai-embeddings.ts';
import { openAIErrorBody } from './openai-error.ts';
import { toOpenAIModelList } from './openai-models.ts';
import { OpenAIChatRequest, OpenAIEmbeddingsRequest } from './openai-schemas.ts';
import { ChunkEncoder, completionAsChunks, toOpenAIChunks } from './openai-stream-chunks.ts';
import { withOpenAIPaths } from './openai-tool-paths.ts';
import { toChatPlan } from './to-chat-input.ts';
import { type CompletedChat, costHeader, toOpenAICompletion } from './to-openai-completion.ts';

/**
 * The OpenAI-compatible door (CONTRACT 4.2), base URL `http://host:8787/v1`: `POST
 * /v1/chat/completions` and `POST /v1/embeddings`, each a translation onto the same use cases as
 * the native routes. Registered inside the authenticated /v1 scope, in a context of its own whose
 * error handler answers every failure in OpenAI's error shape, with the native route's status:
 * the auth hook's 401 and Fastify's own 400/413/415 included.
 */
export async function registerOpenAIDoor(v1: TypedInstance, deps: GatewayDeps): Promise<void> {
  await v1.register(async (door: TypedInstance) => {
    door.setErrorHandler(doorErrorHandler((error) => openAIErrorBody(error.statusCode, error.toEnvelope())));
    registerChatCompletions(door, deps);
    registerEmbeddings(door, deps);
    registerModels(door, deps);
  });
}

function registerChatCompletions(app: TypedInstance, deps: GatewayDeps): void {
  app.post(
    '/v1/chat/completions',
    { schema: { hide: true, body: OpenAIChatRequest } },
    async (request, reply) => {
      const plan = toChatPlan(request.body, resolveModelField(deps, request.body.model, 'chat'));
      if (plan.use === 'chat') withOpenAIPaths(() => validateToolRequest(plan.input, deps.schemas));
      const created = Math.floor(deps.clock.now() / 1000);
      const operation = plan.use === 'json' ? 'json' : plan.stream ? 'chat_stream' : 'chat';
      const run = startRequestRun(
        request,
        reply,
        deps,
        operation,
        {
          task: plan.input.task,
          metadata: plan.metadata,
          session: { promptCacheKey: request.body.prompt_cache_key },
        },
        'openai',
      );
      if (plan.use === 'json') {
        const answer = jsonAsChat(await runJson(deps, plan.input, run));
        if (!plan.stream) {
          return reply
            .headers({ ...run.responseHeaders, ...costHeader(answer.usage) })
            .send(toOpenAICompletion(answer, created));
        }
        const encoder = new ChunkEncoder({
          id: answer.id,
          model: answer.model,
          created,
          includeUsage: plan.includeUsage,
        });
        await writeEventStream(
          reply,
          whole(completionAsChunks(answer, encoder)),
          deps.config.streamKeepAliveMs,
          run.responseHeaders,
        );
        return reply;
      }
      if (!plan.stream) {
        const answer = await runChat(plan.input, run);
        return reply
          .headers({ ...run.responseHeaders, ...costHeader(answer.usage) })
          .send(toOpenAICompletion(answer, created));
      }
      const stream = await openChatStream(plan.input, run);
      const encoder = new ChunkEncoder({
        id: stream.start.id,
        model: stream.start.model,
        created,
        includeUsage: plan.includeUsage,
      });
      await writeEventStream(
        reply,
        toOpenAIChunks(stream.events, encoder),
        deps.config.streamKeepAliveMs,
        run.responseHeaders,
      );
      return reply;
    },
  );
}

function registerEmbeddings(app: TypedInstance, deps: GatewayDeps): void {
  app.post(
    '/v1/embeddings',
    { schema: { hide: true, body: OpenAIEmbeddingsRequest } },
    async (request, reply) => {
      const body = request.body;
      const input = toEmbedInput(body, resolveModelField(deps, body.model, 'embed'));
      const run = startRequestRun(
        request,
        reply,
        deps,
        'embed',
        { metadata: body.metadata ?? undefined },
        'openai',
      );
      const answer = await runEmbed(deps, input, run);
      return reply
        .headers({ ...run.responseHeaders, ...costHeader(answer.usage) })
        .type('application/json; charset=utf-8')
        .send(embeddingsBody(answer, body.encoding_format ?? 'float'));
    },
  );
}

function registerModels(app: TypedInstance, deps: GatewayDeps): void {
  // What the model field resolves depends on the configuration alone: listed once.
  const created = Math.floor(deps.clock.now() / 1000);
  const models = listAddressableModels(deps).map((listed) => ({
    id: listed.id,
    ownedBy: listed.kind === 'route' ? 'gateway' : listed.slot,
  }));
  const body = toOpenAIModelList(models, created);
  app.get('/v1/models', { schema: { hide: true } }, async () => body);
}

/** The JSON use case's answer as a chat answer: the validated value, as JSON text. */
function jsonAsChat(answer: JsonAnswer): CompletedChat {
  return {
    id: answer.id,
    model: answer.model,
    message: { content: JSON.stringify(answer.data) },
    usage: answer.usage,
  };
}

/** Frames known in full, as the generator the stream writer takes. */
async function* whole(frames: string): AsyncGenerator<string, string, undefined> {
  yield frames;
  return '';
}
