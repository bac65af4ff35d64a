import { chatInputTexts } from '../../domain/token-count.ts';
import type { ChatInput } from '../../domain/use-case-inputs.ts';
import type { RequestRun } from '../run/request-run.ts';
import { answerMessage, type ChatAnswer, planChat, runChat } from '../use-cases/run-chat.ts';
import {
  answerAsStream,
  type ChatStream,
  openChatStream,
  type StreamEvent,
} from '../use-cases/run-chat-stream.ts';
import { admitCacheHit, lookUpCached } from './cache-hit.ts';
import type { CachedAnswer, CachePolicy, ResponseCache } from './response-cache.ts';

/** What the response cache did for a request: the `x-gateway-cache` value of its answer. */
export type CacheOutcome = 'hit' | 'miss' | 'bypass';

export interface CachedChat {
  answer: ChatAnswer | ChatStream;
  outcome: CacheOutcome;
  /** On a hit: what the original answer cost. */
  savedUsd?: number;
  /**
   * Called by the edge once the answer was sent or failed: identical requests waiting for this
   * one (coalescing) that got nothing by then go upstream themselves.
   */
  done(): void;
}

/**
 * The chat use case behind the response cache (CONTRACT 5.5). The request is planned first, since
 * its key holds the slots and models it resolves to. A hit (an entry, or with coalescing the
 * answer of an identical request in flight) is admitted against request limits only and answered
 * without an upstream call, a stream replayed as one; a miss runs as any chat, and its answer is
 * kept when it ended complete (a stream: when its `done` event passes).
 */
export async function runCachedChat(
  input: ChatInput,
  run: RequestRun,
  cache: ResponseCache,
  policy: CachePolicy,
  stream: boolean,
): Promise<CachedChat> {
  planChat(input, run);
  const key = cache.keyOf(run.app, input, run.candidates);
  const lookup = await lookUpCached(cache, key, policy, run.signal, (at) => cache.read(at));
  if (lookup.found !== undefined) return answerFromCache(lookup.found, input, run, stream);
  const settle = lookup.settle;
  const done = () => settle?.(undefined);
  const keep = (answer: ChatAnswer, promptUsage: CachedAnswer['promptUsage']) => {
    if (!policy.write) return;
    const entry = toCachedAnswer(answer, promptUsage);
    cache.remember(key, entry, policy.ttlMs);
    settle?.(entry);
  };
  const outcome = policy.read || policy.write ? 'miss' : 'bypass';
  try {
    if (!stream) {
      const answer = await runChat(input, run);
      keep(answer, undefined);
      return { answer, outcome, done };
    }
    const opened = await openChatStream(input, run);
    const events = policy.write ? keeping(opened, keep) : opened.events;
    return { answer: { start: opened.start, events }, outcome, done };
  } catch (error) {
    done();
    throw error;
  }
}

/** A hit: admitted (request limits only), recorded as a hit, answered at cost 0 with the original's usage. */
async function answerFromCache(
  hit: CachedAnswer,
  input: ChatInput,
  run: RequestRun,
  stream: boolean,
): Promise<CachedChat> {
  const savedUsd = hit.usage.estimatedCost;
  const admission = { texts: () => chatInputTexts(input.messages, input.tools), maxOutputTokens: 0 };
  await admitCacheHit(run, admission, { provider: hit.provider, model: hit.model, costUsd: savedUsd });
  const answer: ChatAnswer = {
    id: run.id,
    provider: hit.provider,
    model: hit.model,
    message: answerMessage(hit.content, hit.toolCalls),
    finishReason: hit.finishReason,
    usage: { ...hit.usage, estimatedCost: 0 },
    latencyMs: run.elapsedMs(),
  };
  if (hit.stopSequence !== undefined) answer.stopSequence = hit.stopSequence;
  const done = () => {};
  if (!stream) return { answer, outcome: 'hit', savedUsd, done };
  const replay = answerAsStream(answer);
  if (hit.promptUsage !== undefined) replay.start.promptUsage = hit.promptUsage;
  return { answer: replay, outcome: 'hit', savedUsd, done };
}

/** The stream's events as they are, keeping the answer its `done` event carries. */
async function* keeping(
  stream: ChatStream,
  keep: (answer: ChatAnswer, promptUsage: CachedAnswer['promptUsage']) => void,
): AsyncGenerator<StreamEvent, void, undefined> {
  for await (const event of stream.events) {
    if (event.event === 'done') keep(event.data, stream.start.promptUsage);
    yield event;
  }
}

function toCachedAnswer(answer: ChatAnswer, promptUsage: CachedAnswer['promptUsage']): CachedAnswer {
  const entry: CachedAnswer = {
    provider: answer.provider,
    model: answer.model,
    content: answer.message.content,
    finishReason: answer.finishReason,
    usage: answer.usage,
  };
  if (answer.message.toolCalls !== undefined) entry.toolCalls = answer.message.toolCalls;
  if (answer.stopSequence !== undefined) entry.stopSequence = answer.stopSequence;
  if (promptUsage !== undefined) entry.promptUsage = promptUsage;
  return entry;
}
