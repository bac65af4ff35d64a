import type { ReasoningRequest, ThinkingPart } from '../../domain/content-parts.ts';
import { mediaTokens } from '../../domain/media-tokens.ts';
import type {
  ChatMessage,
  FinishReason,
  ToolCall,
  ToolChoice,
  ToolDefinition,
} from '../../domain/messages.ts';
import type { ReportedUsage } from '../../domain/reported-usage.ts';
import type { PlannedCandidate } from '../../domain/routing.ts';
import {
  chatInputTexts,
  chatOutputTexts,
  countChatInputTokens,
  countChatOutputTokens,
  type Tokenizer,
} from '../../domain/token-count.ts';
import type { ResponseUsage } from '../../domain/usage.ts';
import type { ChatInput } from '../../domain/use-case-inputs.ts';
import type {
  ChatCall,
  ChatResult,
  JsonSchemaFormat,
  ProviderCapabilities,
} from '../../providers/provider.ts';
import { countOrGuess } from '../run/count-or-guess.ts';
import type { RequestRun } from '../run/request-run.ts';
import type { CallSuccess } from '../upstream/upstream-caller.ts';

/** The assistant's message in an answer: its text, and the tool calls it made (absent when none). */
export interface AnswerMessage {
  role: 'assistant';
  content: string;
  toolCalls?: ToolCall[];
}

export interface ChatAnswer {
  id: string;
  provider: string;
  model: string;
  message: AnswerMessage;
  finishReason: FinishReason;
  /**
   * The stop sequence that ended the answer, where the upstream says which (Anthropic, the
   * simulator). Not part of the native answer (CONTRACT): the Anthropic door reports it.
   */
  stopSequence?: string;
  /**
   * The thinking the answer began with, signed by the vendor that made it (an Anthropic
   * upstream's), for a door that hands it to the client to send back (the Responses door's
   * reasoning items). Not part of the native answer.
   */
  thinking?: ThinkingPart[];
  usage: ResponseUsage;
  latencyMs: number;
}

/** POST /v1/chat without streaming: route, admit, call with retries and fallback, account, answer. */
export async function runChat(input: ChatInput, run: RequestRun): Promise<ChatAnswer> {
  await admitChat(input, run);
  return run.perform(answerChat, input);
}

/**
 * Plans the chat and reserves the app's limits for it; shared with the streamed chat. Not `async`:
 * it hands back the admission's promise rather than wrapping it in one more per request (callers
 * are async, so a planning error still reaches them as a rejection).
 */
export function admitChat(input: ChatInput, run: RequestRun): Promise<void> {
  planChat(input, run);
  return run.admit({
    texts: () => chatInputTexts(input.messages, input.tools),
    mediaTokens: () => mediaTokens(input.messages),
    maxOutputTokens: input.maxTokens,
  });
}

/** Plans the chat's candidates (the response cache plans first: its key holds them). */
export function planChat(input: ChatInput, run: RequestRun): void {
  run.plan({
    operation: 'chat',
    provider: input.provider,
    model: input.model,
    task: input.task,
    tools: input.tools !== undefined && input.tools.length > 0,
  });
}

async function answerChat(run: RequestRun, input: ChatInput): Promise<ChatAnswer> {
  const success = await run.call(run.candidates, (adapter, candidate, context) =>
    adapter.chat(toChatCall(input, candidate, adapter.capabilities), context),
  );
  return chatAnswerOf(run, input, success);
}

/**
 * The answer of a chat call that succeeded, accounted on the run: shared with the Anthropic door's
 * cross-vendor attempts (run-pass-through.ts).
 */
export async function chatAnswerOf(
  run: RequestRun,
  input: ChatInput,
  success: CallSuccess<ChatResult>,
): Promise<ChatAnswer> {
  run.markAnswered();
  const result = success.value;
  await run.account({
    provider: success.candidate.provider,
    adapter: success.adapter,
    model: result.model,
    reported: result.usage,
    estimate: (tokenizer) =>
      estimateChatUsage(tokenizer, input.messages, result.content, input.tools, result.toolCalls),
    startedAt: success.startedAt,
    finishReason: result.finishReason,
  });
  const answer: ChatAnswer = {
    id: run.id,
    provider: success.candidate.provider,
    model: result.model,
    message: answerMessage(result.content, result.toolCalls),
    finishReason: result.finishReason,
    usage: run.usage(),
    latencyMs: run.elapsedMs(),
  };
  if (result.stopSequence !== undefined) answer.stopSequence = result.stopSequence;
  if (result.thinking !== undefined && result.thinking.length > 0) answer.thinking = result.thinking;
  return answer;
}

/** The assistant message of an answer; `toolCalls` only when the model made some. */
export function answerMessage(content: string, toolCalls: readonly ToolCall[] | undefined): AnswerMessage {
  return toolCalls === undefined || toolCalls.length === 0
    ? { role: 'assistant', content }
    : { role: 'assistant', content, toolCalls: [...toolCalls] };
}

/** What a chat-shaped call takes from a use case's input. */
export interface ChatLike {
  messages: readonly ChatMessage[];
  temperature?: number | undefined;
  maxTokens?: number | undefined;
  tools?: readonly ToolDefinition[] | undefined;
  toolChoice?: ToolChoice | undefined;
  stop?: readonly string[] | undefined;
  reasoning?: ReasoningRequest | undefined;
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
  // No tools means no choice to make: a choice without tools is refused at the door anyway.
  if (request.tools !== undefined && request.tools.length > 0) {
    call.tools = request.tools;
    if (request.toolChoice !== undefined) call.toolChoice = request.toolChoice;
  }
  if (request.stop !== undefined && request.stop.length > 0) call.stop = request.stop;
  if (jsonSchema !== undefined) call.jsonSchema = jsonSchema;
  if (request.reasoning !== undefined) call.reasoning = request.reasoning;
  return call;
}

/** Token counts by tokenizer, for answers whose upstream reported none; tools and calls included. */
export async function estimateChatUsage(
  tokenizer: Tokenizer,
  messages: readonly ChatMessage[],
  output: string,
  tools?: readonly ToolDefinition[],
  toolCalls?: readonly ToolCall[],
): Promise<ReportedUsage> {
  const [inputTokens, outputTokens] = await Promise.all([
    countOrGuess(
      () => countChatInputTokens(tokenizer, messages, tools),
      () => chatInputTexts(messages, tools),
    ),
    countOrGuess(
      () => countChatOutputTokens(tokenizer, output, toolCalls),
      () => chatOutputTexts(output, toolCalls),
    ),
  ]);
  return { inputTokens, outputTokens };
}

/** The texts a chat request's limits are estimated from. */
export function messageTexts(messages: readonly ChatMessage[]): string[] {
  return chatInputTexts(messages);
}
