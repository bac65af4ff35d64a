import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../platform/errors.ts';
import { countChatInputTokens } from '../../domain/token-count.ts';
import type { TypedInstance } from '../../http/typed-instance.ts';
import { listAddressableModels, resolveModelField } from '../../services/address-model.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import { runEmbed } from '../../services/run-embed.ts';
import { COST_HEADER, formatUsd } from '../cost-header.ts';
import { JSON_TEXT, sendAnswer, serveRun } from '../serve-run.ts';
import {
  batchEmbedContentsBody,
  embedContentBody,
  readBatchEmbedContents,
  readEmbedContent,
} from './embed-content.ts';
import { geminiErrorHandler } from './gemini-error-body.ts';
import { readModelMethod } from './gemini-path.ts';
import { keepRawGeminiBodies } from './raw-gemini-body.ts';
import { readGeminiRequest } from './read-gemini-request.ts';
import { serveGenerateContent } from './serve-generate-content.ts';
import { findGeminiModel, toGeminiModelList } from './to-gemini-model-list.ts';

/** The API versions Google's clients use; the door answers both alike. */
const VERSIONS = ['/v1beta', '/v1'] as const;

interface ModelQuery {
  alt?: string;
}

/**
 * The Gemini API door (CONTRACT 6.3), base URL `http://host:8787` (`GOOGLE_GEMINI_BASE_URL`,
 * `httpOptions.baseUrl`): `POST /v1beta/models/{model}:generateContent`, `:streamGenerateContent`
 * (`?alt=sse`, else a JSON array), `:countTokens`, `:embedContent`, `:batchEmbedContents`, `GET
 * /v1beta/models` and `GET /v1beta/models/{model}`, and the same under `/v1/` (whose `GET
 * /v1/models` stays the OpenAI door's route, answering Google's list for a Google key). Registered
 * inside the authenticated /v1 scope (the key in `x-goog-api-key`, `?key=` or a bearer token), in
 * a context of its own whose every failure is Google's error body (gemini-error-body.ts).
 */
export async function registerGeminiDoor(v1: TypedInstance, deps: GatewayDeps): Promise<void> {
  const models = listAddressableModels(deps);
  await v1.register(async (door: TypedInstance) => {
    door.setErrorHandler(geminiErrorHandler);
    keepRawGeminiBodies(door);
    for (const version of VERSIONS) {
      door.post<{ Querystring: ModelQuery }>(
        `${version}/models/*`,
        { schema: { hide: true } },
        (request, reply) => serveModelMethod(request, reply, deps),
      );
      door.get(`${version}/models/*`, { schema: { hide: true } }, async (request) => {
        const id = (request.params as Record<string, string>)['*'] ?? '';
        const found = findGeminiModel(models, id);
        if (found === undefined)
          throw new ApiError('not_found', `models/${id.slice(0, 128)} is not found on this gateway`);
        return found;
      });
    }
    door.get('/v1beta/models', { schema: { hide: true } }, async () => toGeminiModelList(models));
  });
}

function serveModelMethod(
  request: FastifyRequest<{ Querystring: ModelQuery }>,
  reply: FastifyReply,
  deps: GatewayDeps,
): Promise<FastifyReply> {
  const { model, method } = readModelMethod((request.params as Record<string, string>)['*'] ?? '');
  switch (method) {
    case 'generateContent':
    case 'streamGenerateContent': {
      const stream = method === 'streamGenerateContent';
      return serveGenerateContent(request, reply, deps, {
        model,
        stream,
        sse: stream && request.query.alt === 'sse',
      });
    }
    case 'countTokens':
      return countTokens(request, reply, deps, model);
    default:
      return embed(request, reply, deps, model, method === 'embedContent');
  }
}

/**
 * `countTokens`: counted by the gateway's tokenizer by the rules its estimates use, on every slot
 * (no upstream is called, nothing is charged or recorded), as the Anthropic door's count_tokens.
 */
async function countTokens(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GatewayDeps,
  model: string,
): Promise<FastifyReply> {
  resolveModelField(deps, model);
  const body = request.body as Record<string, unknown> | undefined;
  const inner = body?.['generateContentRequest'];
  const source = typeof inner === 'object' && inner !== null ? inner : body;
  const read = readGeminiRequest(source, model, false, false);
  const tools = read.use === 'chat' ? (read.input.tools ?? []) : [];
  const messages = read.input.messages;
  const totalTokens = await countChatInputTokens(
    deps.tokenizer,
    messages,
    tools.length > 0 ? tools : undefined,
  );
  return reply.send({ totalTokens });
}

function embed(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GatewayDeps,
  model: string,
  one: boolean,
): Promise<FastifyReply> {
  const read = one ? readEmbedContent(request.body) : readBatchEmbedContents(request.body);
  const address = resolveModelField(deps, model, 'embed');
  const input = {
    input: read.texts,
    provider: address.provider,
    model: address.model,
    dimensions: read.dimensions,
  };
  const start = { operation: 'embed', frontDoor: 'gemini', task: undefined, metadata: undefined } as const;
  return serveRun(request, reply, deps, start, async (run) => {
    const answer = await runEmbed(deps, input, run);
    sendAnswer(reply, run, {
      headers: { [COST_HEADER]: formatUsd(answer.usage.estimatedCost) },
      body: one ? embedContentBody(answer.embeddings) : batchEmbedContentsBody(answer.embeddings),
      contentType: JSON_TEXT,
    });
  });
}
