import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../platform/errors.ts';
import { countChatInputTokens } from '../../domain/token-count.ts';
import type { TypedInstance } from '../../http/typed-instance.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import { visibleModels } from '../../services/run/model-access.ts';
import { planOrFail } from '../../services/run/plan-or-fail.ts';
import { plansLane } from '../../services/run/plans-lane.ts';
import { listAddressableModels, resolveModelField } from '../../services/use-cases/address-model.ts';
import { countUpstreamTokens } from '../../services/use-cases/count-upstream-tokens.ts';
import { serveChat } from '../serve-chat.ts';
import { JSON_TEXT } from '../serve-run.ts';
import { serveEmbed } from '../serve-use-case.ts';
import { findGeminiModel, toGeminiModelList } from '../to-gemini-model-list.ts';
import { geminiEmbed } from './embed-content.ts';
import { type GenerateTarget, geminiChat } from './gemini-chat.ts';
import { geminiErrorHandler } from './gemini-error-body.ts';
import { readModelMethod } from './gemini-path.ts';
import { keepRawGeminiBodies, rawGeminiBodyOf } from './raw-gemini-body.ts';
import { readGeminiRequest } from './read-gemini-request.ts';

/** The API versions Google's clients use; the door answers both alike. */
const VERSIONS = ['/v1beta', '/v1'] as const;

interface ModelQuery {
  alt?: string;
}

/** `{model}:{method}` in one segment, or `{slot}` and `{model}:{method}` in two. */
interface ModelParams {
  head: string;
  tail?: string;
}

/** The path's `{model}` (and `:method`) as the client wrote it, a slot's name included. */
function modelPathOf(params: ModelParams): string {
  return params.tail === undefined ? params.head : `${params.head}/${params.tail}`;
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
    // `{model}` is one segment, or two for `<slot>/<model>`, which Google's SDKs leave in the path.
    for (const path of VERSIONS.flatMap((version) => [
      `${version}/models/:head`,
      `${version}/models/:head/:tail`,
    ])) {
      door.post<{ Querystring: ModelQuery; Params: ModelParams }>(
        path,
        { schema: { hide: true } },
        (request, reply) => serveModelMethod(request, reply, deps),
      );
      door.get<{ Params: ModelParams }>(path, { schema: { hide: true } }, async (request) => {
        const id = modelPathOf(request.params);
        const found = findGeminiModel(models, id);
        if (found === undefined)
          throw new ApiError('not_found', `models/${id.slice(0, 128)} is not found on this gateway`);
        return found;
      });
    }
    // Only what the caller's app and team lists allow (CONTRACT 6.5).
    door.get('/v1beta/models', { schema: { hide: true } }, async (request) =>
      toGeminiModelList([...visibleModels(deps, request.appName, models)]),
    );
  });
}

function serveModelMethod(
  request: FastifyRequest<{ Querystring: ModelQuery; Params: ModelParams }>,
  reply: FastifyReply,
  deps: GatewayDeps,
): Promise<FastifyReply> {
  const { model, method } = readModelMethod(modelPathOf(request.params));
  switch (method) {
    case 'generateContent':
    case 'streamGenerateContent': {
      const stream = method === 'streamGenerateContent';
      const target = { model, stream, sse: stream && request.query.alt === 'sse' };
      return serveChat(request, reply, deps, geminiChat(target, takesLane(deps, request.body, target)));
    }
    case 'countTokens':
      return countTokens(request, reply, deps, model);
    default:
      return embed(request, reply, deps, model, method === 'embedContent');
  }
}

/**
 * Whether the request goes by the door's same-vendor lane: always, but for structured output
 * (a JSON `responseMimeType`) that plans no slot of the lane (a gemini slot, a vertex slot's
 * Gemini model), which the structured-output use case
 * serves translated (the lane's use case has no schema to validate against); on a gemini slot
 * Google enforces the schema itself.
 */
function takesLane(deps: GatewayDeps, body: unknown, target: GenerateTarget): boolean {
  const config =
    typeof body === 'object' && body !== null
      ? (body as Record<string, unknown>)['generationConfig']
      : undefined;
  const mime =
    typeof config === 'object' && config !== null
      ? (config as Record<string, unknown>)['responseMimeType']
      : undefined;
  if (mime !== 'application/json') return true;
  try {
    const address = resolveModelField(deps, target.model);
    const candidates = planOrFail(deps, { operation: 'chat', ...address, tools: false });
    const lane = geminiChat(target).passThrough;
    return (
      lane !== undefined && plansLane(deps, candidates, { laneKinds: lane.slotKinds, laneWire: lane.wire })
    );
  } catch {
    // A request that cannot be planned is refused by the translated way, as every door's is.
    return false;
  }
}

/**
 * `countTokens`: Google's own count where the route's first slot is a gemini slot (the body goes
 * there as its bytes, Google's answer comes back as it wrote it); elsewhere counted by the
 * gateway's tokenizer by the rules its estimates use, as the Anthropic door's count_tokens. No
 * upstream is charged and nothing is recorded either way.
 */
async function countTokens(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GatewayDeps,
  model: string,
): Promise<FastifyReply> {
  const address = resolveModelField(deps, model);
  const body = request.body as Record<string, unknown> | undefined;
  const inner = body?.['generateContentRequest'];
  const source = typeof inner === 'object' && inner !== null ? inner : body;
  // Read first on every slot: a body the door cannot read is its 400, whoever would count it.
  const read = readGeminiRequest(source, model, false, false);
  const bytes = rawGeminiBodyOf(request) ?? Buffer.from(JSON.stringify(body));
  // The slot's own timeouts bound the call; a client that leaves ends it.
  const leaving = new AbortController();
  const leave = () => leaving.abort();
  reply.raw.once('close', leave);
  try {
    const context = { signal: leaving.signal, requestId: String(request.id) };
    const counted = await countUpstreamTokens(deps, address, bytes, context);
    if (counted !== undefined) return reply.type(JSON_TEXT).send(counted);
  } finally {
    reply.raw.off('close', leave);
  }
  const tools = read.use === 'chat' ? (read.input.tools ?? []) : [];
  const totalTokens = await countChatInputTokens(
    deps.tokenizer,
    read.input.messages,
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
  return serveEmbed(request, reply, deps, geminiEmbed(model, one));
}
