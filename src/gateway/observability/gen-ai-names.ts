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
  azure: 'azure.ai.openai',
  bedrock: 'aws.bedrock',
  vertex: 'gcp.vertex_ai',
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

/**
 * `gen_ai.token.type`: the conventions' well-known values are `input` and `output` only, and allow
 * custom ones. The prompt cache's reads and writes take the names the conventions give their
 * counts (`gen_ai.usage.cache_read.input_tokens`, `gen_ai.usage.cache_creation.input_tokens`): parts
 * of `input`, which includes them as the conventions say (decision 0017).
 */
export const GEN_AI_TOKEN_TYPE = {
  input: 'input',
  output: 'output',
  cacheRead: 'cache_read',
  cacheCreation: 'cache_creation',
} as const;

/** The span attributes of the prompt cache's counts (part of `gen_ai.usage.input_tokens`). */
export const GEN_AI_CACHE_READ_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
export const GEN_AI_CACHE_CREATION_TOKENS = 'gen_ai.usage.cache_creation.input_tokens';
