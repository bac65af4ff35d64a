import { type Static, Type } from 'typebox';
import { PROVIDER_SLOTS } from '../../../config/config-types.ts';
import { AnyJson, StringEnum } from '../../../platform/schema-helpers.ts';
import type { FinishReason as FinishReasonValue } from '../../domain/messages.ts';
import { MAX_MODEL_NAME_LENGTH } from '../../domain/model-addressing.ts';
import {
  MAX_TOOL_CALL_ID_LENGTH,
  MAX_TOOL_CALLS_PER_MESSAGE,
  MAX_TOOLS,
  TOOL_NAME_PATTERN,
} from '../../domain/tool-limits.ts';

/**
 * The one source of surface A's shapes: Fastify validates requests and serialises responses with
 * these, and the OpenAPI document is generated from them. Unknown fields are refused (as the
 * vendors' APIs do), except inside `metadata` and `schema`.
 */
const closed = { additionalProperties: false } as const;

export const Provider = StringEnum(PROVIDER_SLOTS, { description: 'Provider slot' });

export const ToolCall = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: MAX_TOOL_CALL_ID_LENGTH,
      description:
        "Unique within the conversation; a tool message answers it. Opaque: send it back exactly as received (an id the gateway gives a Gemini call carries that call's thought signature, and may be long)",
    }),
    name: Type.String({ description: 'The tool called' }),
    arguments: Type.String({
      description:
        'The JSON text the model produced for the arguments, kept as text: it may not parse, and the client decides what to do then',
    }),
  },
  { ...closed, $id: 'ToolCall' },
);

export const Message = Type.Object(
  {
    role: StringEnum(['system', 'user', 'assistant', 'tool'] as const),
    content: Type.String({ description: 'May be empty on an assistant message that only calls tools' }),
    name: Type.Optional(Type.String()),
    toolCalls: Type.Optional(
      Type.Array(Type.Unsafe<Static<typeof ToolCall>>(Type.Ref('ToolCall')), {
        maxItems: MAX_TOOL_CALLS_PER_MESSAGE,
        description: 'Assistant messages only: the tool calls it made, in order',
      }),
    ),
    toolCallId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_TOOL_CALL_ID_LENGTH,
        description:
          'Tool messages only: the id of the call (of an earlier assistant message) whose result this is',
      }),
    ),
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

export const Tool = Type.Object(
  {
    name: Type.String({ pattern: TOOL_NAME_PATTERN, description: "Unique among the request's tools" }),
    description: Type.Optional(Type.String({ description: 'What the tool does, for the model' })),
    parameters: Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      additionalProperties: true,
      description:
        'JSON Schema of the arguments (2020-12 by default, draft-07 by $schema), an object schema; the limits of /v1/json schemas apply',
    }),
  },
  { ...closed, $id: 'Tool' },
);

export const ToolChoice = Type.Union(
  [
    StringEnum(['auto', 'none', 'required'] as const),
    Type.Object({ name: Type.String({ description: 'A tool of the request' }) }, closed),
  ],
  {
    $id: 'ToolChoice',
    description:
      'auto (the default with tools): the model chooses; none: no calls; required: at least one call; {name}: a call of that tool',
  },
);

const FINISH_REASONS = [
  'stop',
  'length',
  'tool_calls',
  'content_filter',
  'other',
] as const satisfies readonly FinishReasonValue[];

export const FinishReason = StringEnum(FINISH_REASONS, {
  description: 'Why the model stopped: tool_calls when the answer is tool calls the client should run',
});

/**
 * Model and task names are bounded as the doors bound theirs: they reach the ledger and its
 * rollups' keys, and a 100 kB key made every later insert into a rollup read it (issue 27: the
 * ledger's writer fell to a few hundred rows a second after fuzzed requests with such names).
 */
const ModelName = Type.String({ maxLength: MAX_MODEL_NAME_LENGTH });
const RouteName = Type.String({
  maxLength: MAX_MODEL_NAME_LENGTH,
  description: 'Routing hint: selects a configured route',
});

export const ChatRequest = Type.Object(
  {
    messages: Type.Array(messageRef(), { minItems: 1 }),
    task: Type.Optional(RouteName),
    model: Type.Optional(ModelName),
    provider: Type.Optional(Provider),
    temperature: Type.Optional(Temperature),
    maxTokens: Type.Optional(Type.Integer({ minimum: 1 })),
    stream: Type.Optional(Type.Boolean({ default: false })),
    tools: Type.Optional(
      Type.Array(Type.Unsafe<Static<typeof Tool>>(Type.Ref('Tool')), {
        maxItems: MAX_TOOLS,
        description: 'Tools the model may call; names unique',
      }),
    ),
    toolChoice: Type.Optional(Type.Unsafe<Static<typeof ToolChoice>>(Type.Ref('ToolChoice'))),
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
    model: Type.Optional(ModelName),
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
    task: Type.Optional(RouteName),
    model: Type.Optional(ModelName),
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
    tokensInCacheRead: Type.Integer({
      minimum: 0,
      description: "Input tokens read from the upstream's prompt cache, part of tokensIn; 0 when none",
    }),
    tokensInCacheWrite: Type.Integer({
      minimum: 0,
      description:
        "Input tokens written to the upstream's prompt cache (5-minute and 1-hour), part of tokensIn; 0 when none",
    }),
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
    finishReason: FinishReason,
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
export const SHARED_SCHEMAS = [ToolCall, Message, Tool, ToolChoice, Usage, ErrorResponse];

export type MessageBody = Static<typeof Message>;
export type ChatBody = Static<typeof ChatRequest>;
export type EmbedBody = Static<typeof EmbedRequest>;
export type JsonBody = Static<typeof JsonRequest>;
export type UsageBody = Static<typeof Usage>;
