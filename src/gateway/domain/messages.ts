import type { ContentPart } from './content-parts.ts';

/**
 * A tool the model may call: its name, what it is for, and a JSON Schema object for its
 * arguments (CONTRACT 4.1).
 */
export interface ToolDefinition {
  name: string;
  description?: string | undefined;
  parameters: Record<string, unknown>;
}

/**
 * Whether and which tool the model must call: `auto` lets it choose, `none` forbids calls,
 * `required` demands at least one, `{name}` demands that one.
 */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/**
 * One call the model made. `arguments` is the JSON text the model produced, kept as text: a
 * model may write JSON that does not parse, and the caller (not the gateway) decides what to do.
 */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A chat message as the gateway's interface defines it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  /** The text; may be empty on an assistant message that only calls tools. */
  content: string;
  name?: string | undefined;
  /** On an assistant message: the tool calls it made, in order. */
  toolCalls?: readonly ToolCall[] | undefined;
  /** On a `tool` message: the id of the call whose result this is. */
  toolCallId?: string | undefined;
  /**
   * The whole content in order, where it holds more than text (content-parts.ts): images and
   * files on user and tool messages, thinking on assistant ones. `content` is then the text of
   * its text parts. Absent on the native API, whose messages are text.
   */
  parts?: readonly ContentPart[] | undefined;
}

/** Why an upstream stopped writing, in the gateway's words rather than each vendor's. */
export type FinishReason = 'stop' | 'length' | 'content_filter' | 'tool_calls' | 'other';

/**
 * Which wire format a request came in by: the native API, a vendor-compatible door (CONTRACT
 * 4.2; `responses` is the Responses API, 5.4; `gemini` the Gemini API, 6.3), or the MCP gateway (`mcp`, 5.7). Recorded in the
 * ledger and a grouping of `GET /v1/usage`.
 */
/**
 * The wire format a same-vendor lane relays (CONTRACT 5.2, 6.3): Anthropic's Messages (the
 * Anthropic door's) or Google's GenerateContentRequest (the Gemini door's). A slot kind that
 * serves both (Vertex: Claude and Gemini models) relays the one its model speaks.
 */
export type RelayWire = 'messages' | 'gemini';

export type FrontDoor = 'native' | 'openai' | 'anthropic' | 'responses' | 'mcp' | 'gemini';
