import { type Static, Type } from 'typebox';
import { MAX_TOOL_CALL_ID_LENGTH } from '../../domain/tool-limits.ts';

/**
 * The request bodies of the OpenAI-compatible door, as OpenAI's API reference and the `openai`
 * package's types describe them (`ChatCompletionCreateParams`, `EmbeddingCreateParams`). Unlike the
 * native schemas these are open: OpenAI adds fields often, and a client may send any of them, so an
 * unknown field is accepted here and the translation (`read-completion-request.ts`) decides whether it is
 * harmless (ignored) or changes the answer (a 400 naming it). Only the fields the door reads are
 * typed; null stands for "not set", as the SDKs send it.
 */
const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

/** A content part: text, `image_url` and `file` are read by the translation (read-openai-parts.ts); others refused there. */
const ContentPart = Type.Object({
  type: Type.String(),
  text: Type.Optional(Type.String()),
  image_url: Type.Optional(Type.Unknown()),
  file: Type.Optional(Type.Unknown()),
});

const Content = Type.Union([Type.String(), Type.Array(ContentPart), Type.Null()]);

/** Call ids are the gateway's (a Gemini call's carries its thought signature) or the client's: bounded, opaque. */
const CallId = Type.String({ minLength: 1, maxLength: MAX_TOOL_CALL_ID_LENGTH });

const ToolCallParam = Type.Object({
  id: CallId,
  type: Type.String(),
  function: Type.Optional(Type.Object({ name: Type.String({ minLength: 1 }), arguments: Type.String() })),
});

const MessageParam = Type.Object({
  role: Type.Unsafe<'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function'>({
    type: 'string',
    enum: ['system', 'developer', 'user', 'assistant', 'tool', 'function'],
  }),
  content: Type.Optional(Content),
  name: Type.Optional(Type.String()),
  tool_calls: Type.Optional(Type.Union([Type.Array(ToolCallParam), Type.Null()])),
  tool_call_id: Type.Optional(CallId),
});

const FunctionTool = Type.Object({
  type: Type.String(),
  function: Type.Optional(
    Type.Object({
      name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
      description: Type.Optional(Type.String()),
      parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      strict: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    }),
  ),
});

const ToolChoiceParam = Type.Union([
  Type.Unsafe<'none' | 'auto' | 'required'>({ type: 'string', enum: ['none', 'auto', 'required'] }),
  Type.Object({
    type: Type.String(),
    function: Type.Optional(Type.Object({ name: Type.String({ minLength: 1 }) })),
  }),
]);

const ResponseFormat = Type.Object({
  type: Type.Unsafe<'text' | 'json_object' | 'json_schema'>({
    type: 'string',
    enum: ['text', 'json_object', 'json_schema'],
  }),
  json_schema: Type.Optional(
    Type.Object({
      name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
      description: Type.Optional(Type.String()),
      schema: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      strict: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    }),
  ),
});

const OptionalNumber = Type.Optional(Type.Union([Type.Number(), Type.Null()]));

export const OpenAIChatRequest = Type.Object({
  model: Type.String({ minLength: 1 }),
  messages: Type.Array(MessageParam, { minItems: 1 }),
  tools: Type.Optional(Type.Union([Type.Array(FunctionTool), Type.Null()])),
  tool_choice: Type.Optional(Type.Union([ToolChoiceParam, Type.Null()])),
  response_format: Type.Optional(Type.Union([ResponseFormat, Type.Null()])),
  temperature: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 2 }), Type.Null()])),
  top_p: OptionalNumber,
  frequency_penalty: OptionalNumber,
  presence_penalty: OptionalNumber,
  max_tokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  max_completion_tokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  stop: Type.Optional(
    Type.Union([nullable(Type.String()), Type.Array(Type.String({ minLength: 1 }), { maxItems: 4 })]),
  ),
  stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  stream_options: Type.Optional(
    Type.Union([Type.Object({ include_usage: Type.Optional(Type.Boolean()) }), Type.Null()]),
  ),
  n: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  // The request's session key (CONTRACT 5.6): it keeps a session on one deployment of its slot.
  prompt_cache_key: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

export type OpenAIChatBody = Static<typeof OpenAIChatRequest>;
export type OpenAIMessageParam = Static<typeof MessageParam>;

export const OpenAIEmbeddingsRequest = Type.Object({
  model: Type.String({ minLength: 1 }),
  // Token arrays (arrays of integers) are OpenAI input too; the translation refuses them by name.
  input: Type.Union([Type.String(), Type.Array(Type.Unknown(), { minItems: 1 })]),
  encoding_format: Type.Optional(
    Type.Unsafe<'float' | 'base64'>({ type: 'string', enum: ['float', 'base64'] }),
  ),
  dimensions: Type.Optional(Type.Integer({ minimum: 1, maximum: 8192 })),
  metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
});

export type OpenAIEmbeddingsBody = Static<typeof OpenAIEmbeddingsRequest>;
