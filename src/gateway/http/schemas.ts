import { type Static, Type } from 'typebox';
import { PROVIDER_SLOTS } from '../../config/config-types.ts';
import { AnyJson, StringEnum } from '../../platform/schema-helpers.ts';

/**
 * The one source of surface A's shapes: Fastify validates requests and serialises responses with
 * these, and the OpenAPI document is generated from them. Unknown fields are refused (as the
 * vendors' APIs do), except inside `metadata` and `schema`.
 */
const closed = { additionalProperties: false } as const;

export const Provider = StringEnum(PROVIDER_SLOTS, { description: 'Provider slot' });

export const Message = Type.Object(
  {
    role: StringEnum(['system', 'user', 'assistant', 'tool'] as const),
    content: Type.String(),
    name: Type.Optional(Type.String()),
  },
  { ...closed, $id: 'Message' },
);

/**
 * A reference to the shared Message schema (`{"$ref": "Message"}`, as before), typed as a message:
 * a bare `Type.Ref` is `unknown` to the type provider.
 */
const messageRef = () => Type.Unsafe<Static<typeof Message>>(Type.Ref('Message'));

const Metadata = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: true,
  description: 'Free-form; kept in the gateway records, never sent upstream',
});
const Temperature = Type.Number({ minimum: 0, maximum: 2 });

export const ChatRequest = Type.Object(
  {
    messages: Type.Array(messageRef(), { minItems: 1 }),
    task: Type.Optional(Type.String({ description: 'Routing hint: selects a configured route' })),
    model: Type.Optional(Type.String()),
    provider: Type.Optional(Provider),
    temperature: Type.Optional(Temperature),
    maxTokens: Type.Optional(Type.Integer({ minimum: 1 })),
    stream: Type.Optional(Type.Boolean({ default: false })),
    metadata: Type.Optional(Metadata),
  },
  { ...closed, $id: 'ChatRequest' },
);

export const EmbedRequest = Type.Object(
  {
    input: Type.Unsafe<string | string[]>({
      type: ['string', 'array'],
      minLength: 1,
      minItems: 1,
      items: { type: 'string', minLength: 1 },
      description: 'A non-empty string, or a non-empty array of non-empty strings',
    }),
    model: Type.Optional(Type.String()),
    provider: Type.Optional(Provider),
    metadata: Type.Optional(Metadata),
  },
  { ...closed, $id: 'EmbedRequest' },
);

export const JsonRequest = Type.Object(
  {
    messages: Type.Array(messageRef(), { minItems: 1 }),
    schema: Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      additionalProperties: true,
      description: 'JSON Schema (2020-12 by default, draft-07 by $schema) the output must conform to',
    }),
    schemaName: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })),
    task: Type.Optional(Type.String()),
    model: Type.Optional(Type.String()),
    provider: Type.Optional(Provider),
    temperature: Type.Optional(Temperature),
    metadata: Type.Optional(Metadata),
  },
  { ...closed, $id: 'JsonRequest' },
);

export const Usage = Type.Object(
  {
    tokensIn: Type.Integer({ minimum: 0 }),
    tokensOut: Type.Integer({ minimum: 0 }),
    estimatedCost: Type.Number({ minimum: 0, description: 'US dollars, summed over every upstream attempt' }),
    estimated: Type.Boolean({ description: 'True when token counts were estimated with a tokenizer' }),
  },
  { $id: 'Usage' },
);

const common = {
  id: Type.String(),
  provider: Provider,
  model: Type.String(),
  usage: Type.Ref('Usage'),
  latencyMs: Type.Number({ minimum: 0 }),
};

export const ChatResponse = Type.Object(
  {
    id: common.id,
    provider: common.provider,
    model: common.model,
    message: Type.Ref('Message'),
    usage: common.usage,
    latencyMs: common.latencyMs,
  },
  { $id: 'ChatResponse' },
);

export const EmbedResponse = Type.Object(
  {
    id: common.id,
    provider: common.provider,
    model: common.model,
    embeddings: Type.Array(Type.Array(Type.Number())),
    usage: common.usage,
    latencyMs: common.latencyMs,
  },
  { $id: 'EmbedResponse' },
);

export const JsonResponse = Type.Object(
  {
    id: common.id,
    provider: common.provider,
    model: common.model,
    data: AnyJson({ description: 'Model output, valid against the requested schema' }),
    raw: Type.Optional(Type.Ref('Message')),
    usage: common.usage,
    latencyMs: common.latencyMs,
  },
  { $id: 'JsonResponse' },
);

export const ErrorResponse = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Optional(AnyJson()),
    }),
  },
  { $id: 'Error' },
);

export const GatewayHealth = Type.Object(
  {
    ok: Type.Optional(Type.Boolean()),
    service: Type.Optional(Type.String()),
    environment: Type.Optional(Type.String()),
    requestId: Type.Optional(Type.String()),
  },
  { $id: 'GatewayHealth' },
);

/** Shared schemas registered with Fastify (and so listed under components in OpenAPI). */
export const SHARED_SCHEMAS = [Message, Usage, ErrorResponse];

export type MessageBody = Static<typeof Message>;
export type ChatBody = Static<typeof ChatRequest>;
export type EmbedBody = Static<typeof EmbedRequest>;
export type JsonBody = Static<typeof JsonRequest>;
export type UsageBody = Static<typeof Usage>;
