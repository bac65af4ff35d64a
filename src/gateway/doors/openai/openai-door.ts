import type { ListedModel } from '../../domain/model-catalog.ts';
import type { TypedInstance } from '../../http/typed-instance.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import { visibleModels } from '../../services/run/model-access.ts';
import { listAddressableModels } from '../../services/use-cases/address-model.ts';
import { costHeader } from '../cost-header.ts';
import { doorErrorHandler } from '../door-error-handler.ts';
import { openAIDoorErrorBody } from '../openai-error-body.ts';
import { serveChat } from '../serve-chat.ts';
import { JSON_TEXT } from '../serve-run.ts';
import { type EmbedDoor, type EmbedReading, serveEmbed } from '../serve-use-case.ts';
import { toAnthropicModelList } from '../to-anthropic-model-list.ts';
import { toGeminiModelList } from '../to-gemini-model-list.ts';
import { toOpenAIModelList } from '../to-openai-model-list.ts';
import { OPENAI_CHAT } from './openai-chat.ts';
import { OpenAIChatRequest, type OpenAIEmbeddingsBody, OpenAIEmbeddingsRequest } from './openai-schemas.ts';
import { readEmbeddingsRequest } from './read-embeddings-request.ts';
import { embeddingsBody } from './to-openai-embeddings.ts';

/**
 * The OpenAI-compatible door (CONTRACT 4.2), base URL `http://host:8787/v1`: `POST
 * /v1/chat/completions` and `POST /v1/embeddings`, each a translation onto the same use cases as
 * the native routes, and `GET /v1/models` (in Anthropic's shape for a request with
 * `anthropic-version`). Registered inside the authenticated /v1 scope, in a
 * context of its own whose error handler answers every failure in OpenAI's error shape, with the
 * native route's status: the auth hook's 401 and Fastify's own 400/413/415 included.
 */
export async function registerOpenAIDoor(v1: TypedInstance, deps: GatewayDeps): Promise<void> {
  await v1.register(async (door: TypedInstance) => {
    door.setErrorHandler(doorErrorHandler(openAIDoorErrorBody));
    door.post('/v1/chat/completions', { schema: { hide: true, body: OpenAIChatRequest } }, (request, reply) =>
      serveChat(request, reply, deps, OPENAI_CHAT),
    );
    registerEmbeddings(door, deps);
    registerModels(door, deps);
  });
}

function registerEmbeddings(app: TypedInstance, deps: GatewayDeps): void {
  app.post('/v1/embeddings', { schema: { hide: true, body: OpenAIEmbeddingsRequest } }, (request, reply) =>
    serveEmbed(request, reply, deps, OPENAI_EMBED),
  );
}

/** `/v1/embeddings`: OpenAI's body onto the embeddings use case, its answer in OpenAI's shape with the cost header. */
const OPENAI_EMBED: EmbedDoor<EmbedReading & { encoding: 'float' | 'base64' }> = {
  frontDoor: 'openai',
  read: (body, address) => {
    const request = body as OpenAIEmbeddingsBody;
    const input = readEmbeddingsRequest(request, address(request.model));
    return {
      input,
      task: undefined,
      metadata: request.metadata ?? undefined,
      encoding: request.encoding_format ?? 'float',
    };
  },
  answer: (answer, request) => ({
    headers: costHeader(answer.usage),
    body: embeddingsBody(answer, request.encoding),
    contentType: JSON_TEXT,
  }),
};

function registerModels(app: TypedInstance, deps: GatewayDeps): void {
  // What the model field resolves depends on the configuration alone: listed once, and filtered
  // per request by the app's and its team's allow lists (CONTRACT 6.5) when it has any.
  const created = Math.floor(deps.clock.now() / 1000);
  const listed = listAddressableModels(deps);
  const lists = (visible: readonly ListedModel[]) => {
    const models = visible.map((entry) => ({
      id: entry.id,
      ownedBy: entry.kind === 'route' ? 'gateway' : entry.slot,
    }));
    return {
      openai: toOpenAIModelList(models, created),
      anthropic: toAnthropicModelList(models, new Date(created * 1000).toISOString().replace('.000Z', 'Z')),
      google: toGeminiModelList(visible as ListedModel[]),
    };
  };
  const everything = lists(listed);
  // Anthropic's clients name their API version on every request; OpenAI's never do (CONTRACT 5.2).
  // Google's send their key in x-goog-api-key or ?key= (6.9).
  app.get('/v1/models', { schema: { hide: true } }, async (request) => {
    const visible = visibleModels(deps, request.appName, listed);
    const answer = visible === listed ? everything : lists(visible);
    if (
      request.headers['x-goog-api-key'] !== undefined ||
      (request.query as Record<string, unknown>)['key'] !== undefined
    )
      return answer.google;
    return request.headers['anthropic-version'] === undefined ? answer.openai : answer.anthropic;
  });
}
