import type { ProviderSlot } from '../../config/config-types.ts';
import type { ReasoningRequest } from './content-parts.ts';
import type { ChatMessage, ToolChoice, ToolDefinition } from './messages.ts';

/**
 * What each use case is asked to do, in the gateway's words. A door (today the native HTTP
 * routes) maps its wire format onto these; services never see an HTTP schema type. The request's
 * `task` and `metadata` travel on the request run, which records them.
 */
export interface ChatInput {
  messages: readonly ChatMessage[];
  provider?: ProviderSlot | undefined;
  model?: string | undefined;
  task?: string | undefined;
  temperature?: number | undefined;
  maxTokens?: number | undefined;
  /** Tools the model may call (names unique, parameters compiled: checked at the door). */
  tools?: readonly ToolDefinition[] | undefined;
  toolChoice?: ToolChoice | undefined;
  /** Stop sequences (the compatible doors' `stop` / `stop_sequences`; the native API has none). */
  stop?: readonly string[] | undefined;
  /** The model's thinking, where the door's body asks for it (Anthropic `thinking`, OpenAI `reasoning_effort`). */
  reasoning?: ReasoningRequest | undefined;
}

export interface EmbedInput {
  /** One string, or several: one vector each, in order. */
  input: string | readonly string[];
  provider?: ProviderSlot | undefined;
  model?: string | undefined;
  /** The vectors' length, where the model can shorten them (OpenAI's `dimensions`). */
  dimensions?: number | undefined;
}

export interface JsonInput {
  messages: readonly ChatMessage[];
  /** The JSON Schema the output must satisfy. */
  schema: Record<string, unknown>;
  schemaName?: string | undefined;
  provider?: ProviderSlot | undefined;
  model?: string | undefined;
  task?: string | undefined;
  temperature?: number | undefined;
}
