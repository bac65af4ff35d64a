import { isKeptMessageText, RelayedMessageBuilder } from '../../providers/relayed-message-builder.ts';
import type { GatewayDeps } from '../gateway-deps.ts';
import { planOrFail } from '../run/plan-or-fail.ts';
import type { RelayOut } from '../run/relay-stream.ts';
import type { RequestRun } from '../run/request-run.ts';
import {
  IGNORED_FIELDS_HEADER,
  type MessagesAnswer,
  type MessagesInput,
  type MessagesStream,
  openMessagesStream,
  planMessages,
  relayOf,
  runMessages,
} from '../use-cases/run-messages.ts';
import { admitCacheHit, lookUpCached } from './cache-hit.ts';
import type { CachePolicy, RelayedCacheEntry } from './response-cache.ts';
import type { CacheOutcome } from './run-cached-chat.ts';

/**
 * How a lane's answers are judged and kept (a door's wire format): whether a whole answer ended
 * as asked, and the rebuilder of a stream's answer from its events. Absent on a lane's
 * description: Anthropic's Messages, the first lane.
 */
export interface RelayKeeper {
  /** Whether a whole relayed answer (its text) ended normally, so that it may be kept. */
  isKept(text: string): boolean;
  /** A rebuilder of a stream's whole answer, within `maxBytes` of events. */
  builder(maxBytes: number): RelayedAnswerBuilder;
}

/** A stream's answer rebuilt from its events as they pass (RelayedMessageBuilder for Messages). */
export interface RelayedAnswerBuilder {
  add(event: string, data: string): void;
  /** The whole answer's JSON, once the stream ended as asked; else undefined. */
  message(): string | undefined;
  /** The answering model, as the stream said it. */
  readonly model: string | undefined;
  /** The usage as the stream said it, for a replay to say it the same way (Messages' events). */
  readonly streamUsage?: RelayedCacheEntry['streamUsage'];
}

/** Anthropic's Messages: a Message that stopped as asked, a stream rebuilt by its events. */
export const MESSAGES_KEEPER: RelayKeeper = {
  isKept: isKeptMessageText,
  builder: (maxBytes) => new RelayedMessageBuilder(maxBytes),
};

/** A hit: the cached Messages JSON, for the door to send whole or replay as a stream. */
export interface MessagesHit {
  lane: 'hit';
  message: string;
  streamUsage?: RelayedCacheEntry['streamUsage'];
}

export interface CachedMessages {
  answer: MessagesAnswer | MessagesStream | MessagesHit;
  outcome: CacheOutcome;
  /** On a hit: what the original answer cost. */
  savedUsd?: number;
  /** Called by the edge once the answer was sent or failed (as CachedChat's). */
  done(): void;
}

/**
 * Whether a `/v1/messages` request's plan holds an `anthropic` slot, whose attempt relays the
 * client's body: then the response cache serves it on the same-vendor lane (runCachedMessages),
 * so that turning the cache on never changes what reaches an anthropic upstream. A request that
 * cannot be planned says no: the translating way refuses it as it always did.
 */
export function plansARelay(deps: GatewayDeps, input: MessagesInput): boolean {
  try {
    const candidates = planOrFail(deps, {
      operation: 'chat',
      provider: input.provider,
      model: input.model,
      task: input.task,
      tools: input.tools,
    });
    return candidates.some(
      (candidate) => relayOf(deps.registry.adapter(candidate.provider), input, candidate.model) !== undefined,
    );
  } catch {
    return false;
  }
}

/**
 * A door's chat behind the response cache, on its same-vendor lane (decision 0021, amended):
 * the Anthropic door's Messages, the Gemini door's generateContent, each judged and rebuilt by
 * its lane's `keeper`. The key is the app, the plan, the forwarded headers and the client's body (but
 * `model`, `stream`, `metadata`); a hit is admitted and recorded as every hit is (cache-hit.ts)
 * and answered with the upstream's Messages JSON, no upstream call. A miss runs as without the
 * cache, the body going upstream as the client wrote it; a relayed answer that ended normally is
 * kept (a stream's rebuilt from its events once it ended whole). An attempt that fell over to a
 * slot of another kind answered in the gateway's words: it is not kept.
 */
export async function runCachedMessages(
  deps: GatewayDeps,
  input: MessagesInput,
  body: Readonly<Record<string, unknown>>,
  run: RequestRun,
  policy: CachePolicy,
  stream: boolean,
  keeper: RelayKeeper = MESSAGES_KEEPER,
): Promise<CachedMessages> {
  const cache = deps.responseCache;
  planMessages(input, run);
  const key = cache.relayKeyOf(run.app, run.candidates, input.headers, body);
  const lookup = await lookUpCached(
    cache,
    key,
    policy,
    run.signal,
    (at) => cache.readRelayed(at),
    () => true,
  );
  const found = lookup.found;
  if (found !== undefined) {
    await admitCacheHit(run, { texts: input.texts, maxOutputTokens: 0 }, found);
    const answer: MessagesHit = { lane: 'hit', message: found.message };
    // Printable ASCII only: it is written as a header.
    if (typeof found.ignoredFields === 'string' && /^[\x20-\x7e]{1,4096}$/.test(found.ignoredFields))
      run.responseHeaders[IGNORED_FIELDS_HEADER] = found.ignoredFields;
    if (found.streamUsage !== undefined) answer.streamUsage = found.streamUsage;
    return { answer, outcome: 'hit', savedUsd: found.costUsd, done() {} };
  }
  const settle = lookup.settle;
  const done = () => settle?.(undefined);
  const keep = (given: RelayedCacheEntry) => {
    // The answering attempt named what its cloud left out (run-messages.ts): a hit says it again.
    const ignoredFields = run.responseHeaders[IGNORED_FIELDS_HEADER];
    const entry = ignoredFields === undefined ? given : { ...given, ignoredFields };
    cache.rememberRelayed(key, entry, policy.ttlMs);
    settle?.(entry);
  };
  const outcome = policy.read || policy.write ? 'miss' : 'bypass';
  try {
    if (!stream) {
      const answer = await runMessages(deps, input, run);
      // Its characters first: an answer past the entry bound is not parsed to be judged.
      const fits = answer.lane === 'relay' && answer.text.length <= cache.maxEntryBytes;
      if (policy.write && answer.lane === 'relay' && fits && keeper.isKept(answer.text)) {
        const { provider, model, text: message } = answer;
        keep({ kind: 'relayed', provider, model, message, costUsd: answer.usage.estimatedCost });
      }
      return { answer, outcome, done };
    }
    const opened = await openMessagesStream(deps, input, run);
    if (!policy.write || opened.lane !== 'relay') return { answer: opened, outcome, done };
    const builder = keeper.builder(cache.maxEntryBytes);
    const events = keeping(opened.events, builder, (message, model, costUsd) => {
      const entry: RelayedCacheEntry = {
        kind: 'relayed',
        provider: opened.provider,
        model,
        message,
        costUsd,
      };
      if (builder.streamUsage !== undefined) entry.streamUsage = builder.streamUsage;
      keep(entry);
    });
    return { answer: { ...opened, events }, outcome, done };
  } catch (error) {
    done();
    throw error;
  }
}

/**
 * The relayed events as they are, rebuilding the answer as they pass; once the stream ended
 * whole (read to its end, no error the gateway wrote, a message the builder could rebuild), its
 * message, model and the request's cost (message_delta's) are kept. A client that left stops the
 * reading before the end: nothing is kept.
 */
async function* keeping(
  events: AsyncGenerator<RelayOut, void, undefined>,
  builder: RelayedAnswerBuilder,
  keep: (message: string, model: string, costUsd: number) => void,
): AsyncGenerator<RelayOut, void, undefined> {
  let failed = false;
  let costUsd: number | undefined;
  for await (const out of events) {
    if (out.kind === 'error') failed = true;
    else {
      builder.add(out.event, out.data);
      if (out.costUsd !== undefined) costUsd = out.costUsd;
    }
    yield out;
  }
  const message = builder.message();
  if (failed || message === undefined || costUsd === undefined) return;
  keep(message, builder.model ?? '', costUsd);
}
