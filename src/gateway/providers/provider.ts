import type { ProviderCapabilities, ProviderKind, ProviderSlot } from '../../config/config-types.ts';

import type { ContentPart, ReasoningRequest, ThinkingPart } from '../domain/content-parts.ts';
import type { JsonNumberArray } from '../domain/json-number-array.ts';
import type {
  ChatMessage,
  FinishReason,
  RelayWire,
  ToolCall,
  ToolChoice,
  ToolDefinition,
} from '../domain/messages.ts';
import type { ReportedUsage } from '../domain/reported-usage.ts';
import type { MessagesRelay } from './messages-relay.ts';

// The gateway's vocabulary lives in domain/; adapters keep importing it from here.
// A kind's capabilities are part of its row (config/provider-kinds.ts); adapters take them from there.
export type {
  ChatMessage,
  ContentPart,
  FinishReason,
  ProviderCapabilities,
  ReasoningRequest,
  ReportedUsage,
  ThinkingPart,
  ToolCall,
  ToolChoice,
  ToolDefinition,
};

export interface JsonSchemaFormat {
  name: string;
  schema: Record<string, unknown>;
}

/** What a call tells the adapter beyond the request itself. */
export interface CallContext {
  signal: AbortSignal;
  requestId: string;
  /** 0 for the first call this request makes to this slot, then 1, 2, … (retries and JSON re-asks). */
  attempt: number;
  /** The request's metadata; the simulated provider reads its `simulated` directives. Real ones ignore it. */
  metadata: Readonly<Record<string, unknown>> | undefined;
  /** Stable per app and session (CONTRACT 5.2): an OpenAI upstream's `prompt_cache_key`. */
  promptCacheKey?: string | undefined;
}

export interface ChatCall {
  model: string;
  messages: readonly ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  /** Ask for output conforming to this schema, natively where the upstream can. */
  jsonSchema?: JsonSchemaFormat;
  /** Tools the model may call, in the upstream's own tool format. */
  tools?: readonly ToolDefinition[];
  toolChoice?: ToolChoice;
  stop?: readonly string[];
  /** The model's thinking, as the request asked (content-parts.ts): each adapter in its vendor's form. */
  reasoning?: ReasoningRequest;
}

export interface ChatResult {
  /** The model the upstream says answered (may be more specific than the one asked for). */
  model: string;
  content: string;
  /** The tool calls the model made, in order; absent or empty when it made none. */
  toolCalls?: ToolCall[];
  /**
   * The thinking the answer began with, with the vendor's signature, where the upstream returns
   * it (Anthropic's `thinking` and `redacted_thinking` blocks); absent when there was none.
   */
  thinking?: ThinkingPart[];
  finishReason: FinishReason;
  /**
   * The stop sequence of the call that ended the answer (`finishReason` is then `stop`), where the
   * upstream says which: Anthropic and the simulator do, OpenAI and Gemini do not.
   */
  stopSequence?: string;
  /** Undefined when the upstream reported no usage: the gateway then estimates it. */
  usage: ReportedUsage | undefined;
}

export type ChatStreamEvent =
  | { type: 'delta'; content: string }
  /** One tool call, sent once it is complete: adapters assemble the upstream's argument deltas. */
  | { type: 'tool_call'; call: ToolCall }
  /** One thinking block, sent once it is complete with its signature (Anthropic's). */
  | { type: 'thinking'; part: ThinkingPart }
  | { type: 'usage'; usage: ReportedUsage }
  /**
   * The answering model, first; `promptUsage` the prompt's counts (input, cache; output 0) where the
   * upstream's first event carries them (Anthropic's message_start). `usage` at the end still
   * holds the whole answer's counts.
   */
  | { type: 'model'; model: string; promptUsage?: ReportedUsage }
  /** `stopSequence` as on ChatResult: the sequence that ended the answer, when the upstream says. */
  | { type: 'finish'; reason: FinishReason; stopSequence?: string };

export interface EmbedCall {
  model: string;
  inputs: readonly string[];
  /** The vectors' length, where the model can shorten them; the model's own length when absent. */
  dimensions?: number;
}

/**
 * One embedding, in the form the upstream sent it, so the answer can pass on exactly what came:
 * a Float32Array for packed float32 (OpenAI's base64), written with the digits a float32 needs;
 * a JsonNumberArray for a JSON number array an upstream sent (an OpenAI-compatible server's,
 * Gemini's), whose bytes are copied out as they came; numbers read from JSON (an odd body the
 * byte walker left to JSON.parse, the simulator), written as those numbers (see
 * embed-answer-json.ts).
 */
export type EmbeddingVector = number[] | Float32Array | JsonNumberArray;

export interface EmbedResult {
  model: string;
  vectors: EmbeddingVector[];
  usage: { inputTokens: number } | undefined;
}

/**
 * One upstream bound to a slot. Adapters never read env, never write SSE, never know Fastify:
 * they translate a call to the upstream's wire format and back, and raise ProviderError.
 */
export interface ProviderAdapter {
  readonly slot: ProviderSlot;
  readonly kind: ProviderKind;
  readonly capabilities: ProviderCapabilities;
  chat(call: ChatCall, context: CallContext): Promise<ChatResult>;
  /** Events as the upstream sends them; the first one arriving means the upstream answered. */
  streamChat(call: ChatCall, context: CallContext): AsyncIterable<ChatStreamEvent>;
  embed(call: EmbedCall, context: CallContext): Promise<EmbedResult>;
  /**
   * A same-vendor lane's upstream side: an `anthropic` slot's adapter relays the Anthropic door's
   * Messages (CONTRACT 5.2), a `gemini` slot's the Gemini door's generateContent (6.3). A door's
   * description names the kinds its lane takes, so a relay is only given its own wire format.
   */
  readonly relay?: MessagesRelay;
  /**
   * The same lane where it depends on the model: a cloud kind relays Claude models' Messages
   * bodies (Bedrock's InvokeModel, Vertex's rawPredict; CONTRACT 6.4) and reads any other's
   * across vendors. Wins over `relay`.
   */
  relayFor?(model: string, wire: RelayWire): MessagesRelay | undefined;
  /**
   * Google's own count of a Gemini API countTokens body, sent as its bytes (a gemini slot; the
   * Gemini door's `:countTokens`, CONTRACT 6.3): Google's answer as its text, or undefined for a
   * model Google does not serve on this slot (a Claude model on Vertex). Rejects with
   * ProviderError as `chat` does.
   */
  countGeminiTokens?(model: string, body: Buffer, context: CallContext): Promise<string | undefined>;
  /**
   * The upstream's id for the name a client used, where the slot's `modelMap` maps it (CONTRACT
   * 6.4): the ledger keeps both. Absent: the kind sends the name as it is.
   */
  upstreamModel?(model: string): string;
  close?(): Promise<void>;
}

/**
 * The adapter's same-vendor lane for a model and a wire format, if it has one (CONTRACT 5.2, 6.3,
 * 6.4): a kind of one wire format has its `relay` (a door's lane names the kinds it takes).
 */
export function messagesRelayOf(
  adapter: ProviderAdapter,
  model: string,
  wire: RelayWire = 'messages',
): MessagesRelay | undefined {
  return adapter.relayFor === undefined ? adapter.relay : adapter.relayFor(model, wire);
}
