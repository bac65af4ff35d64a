import type { ProviderKind } from '../../config/config-types.ts';
import type { Operation } from '../../storage/ports.ts';

/**
 * `gen_ai.provider.name` of each provider kind: the OpenTelemetry GenAI conventions' well-known
 * values (`gcp.gemini` is the Gemini API at generativelanguage.googleapis.com). The simulated
 * provider is no vendor; the conventions allow a custom value.
 */
export const GEN_AI_PROVIDER_NAME: Record<ProviderKind, string> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'gcp.gemini',
  simulated: 'simulated',
};

/**
 * `gen_ai.operation.name`: the conventions' `chat`, `embeddings` and `execute_tool` (an MCP
 * gateway call); /v1/json is a chat.
 */
export const GEN_AI_OPERATION_NAME: Record<Operation, string> = {
  chat: 'chat',
  chat_stream: 'chat',
  json: 'chat',
  embed: 'embeddings',
  mcp_tool: 'execute_tool',
};
