import type { PlannedCandidate } from '../domain/routing.ts';
import { countChatInputTokens, loadTokenizer } from '../domain/token-count.ts';
import type {
  ChatCall,
  ChatMessage,
  JsonSchemaFormat,
  ProviderCapabilities,
  ReportedUsage,
} from '../providers/provider.ts';

export interface ChatLike {
  messages: readonly ChatMessage[];
  temperature?: number | undefined;
  maxTokens?: number | undefined;
}

/** The provider call for a candidate: the gateway's fields, with temperature clamped to what the upstream takes. */
export function toChatCall(
  request: ChatLike,
  candidate: PlannedCandidate,
  capabilities: ProviderCapabilities,
  jsonSchema?: JsonSchemaFormat,
): ChatCall {
  const call: ChatCall = { model: candidate.model, messages: request.messages };
  if (request.temperature !== undefined)
    call.temperature = Math.min(request.temperature, capabilities.maxTemperature);
  if (request.maxTokens !== undefined) call.maxTokens = request.maxTokens;
  if (jsonSchema !== undefined) call.jsonSchema = jsonSchema;
  return call;
}

/** Token counts by tokenizer, for answers whose upstream reported none. */
export async function estimateChatUsage(
  messages: readonly ChatMessage[],
  output: string,
): Promise<ReportedUsage> {
  const tokenizer = await loadTokenizer();
  return {
    inputTokens: await countChatInputTokens(tokenizer, messages),
    outputTokens: await tokenizer.count(output),
  };
}
