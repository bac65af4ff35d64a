import type { FinishReason } from '../../domain/messages.ts';
import type { ReportedUsage } from '../../domain/reported-usage.ts';
import type { PlannedCandidate } from '../../domain/routing.ts';
import type { Tokenizer } from '../../domain/token-count.ts';
import { guessTokens } from '../../limits/estimate-usage.ts';
import type { ProviderAdapter } from '../../providers/provider.ts';
import type { RequestRun } from './request-run.ts';
import type { RunTrace } from './request-run-trace.ts';

/*
 * What a RequestRun is handed: by the edge when the request starts, by a use case when it asks
 * for admission and when an upstream call answered, and work that outlives the use case.
 */

/** What the door knows when a request starts; the rest of the run starts empty. */
export type RunInit = Pick<
  RequestRun,
  | 'id'
  | 'requestId'
  | 'app'
  | 'operation'
  | 'frontDoor'
  | 'task'
  | 'metadata'
  | 'sessionKey'
  | 'startedAt'
  | 'receivedAt'
> & { trace?: RunTrace | undefined; batchId?: string | undefined } & Partial<
    Pick<RequestRun, 'endUser' | 'team'>
  >;

export interface AdmissionInput {
  /** The request's texts, or a function giving them: read when the app has limits, or a call is abandoned. */
  texts: readonly string[] | (() => readonly string[]);
  /** Output tokens to reserve: the request's maxTokens, 0 for embeddings, or the default reservation. */
  maxOutputTokens: number | undefined;
  /** Input tokens of the request's images and PDFs (domain/media-tokens.ts), which are no text; read when needed. */
  mediaTokens?: (() => number) | undefined;
}

/** The input's tokens as the limits guess them (four characters to a token, and the media's count). */
export function guessInputTokens(input: AdmissionInput): number {
  const texts = typeof input.texts === 'function' ? input.texts() : input.texts;
  return guessTokens(texts) + (input.mediaTokens?.() ?? 0);
}

export interface AnsweredCall {
  provider: string;
  adapter: ProviderAdapter;
  /** The model the upstream reported (priced), else the one asked for. */
  model: string;
  /** Undefined when the upstream reported nothing: `estimate` is used and marked as such. */
  reported: ReportedUsage | undefined;
  estimate: (tokenizer: Tokenizer) => Promise<ReportedUsage>;
  /** Monotonic ms when the call started. */
  startedAt: number;
  outcome?: string;
  /** Why the model stopped, when the upstream said (traces only). */
  finishReason?: FinishReason | undefined;
  /** The upstream's HTTP status; null for a call the client abandoned before its answer. */
  upstreamStatus?: number | null;
}

/** An upstream call in flight when the client left: the upstream had the request, and may bill it. */
export interface AbandonedCall {
  candidate: PlannedCandidate;
  adapter: ProviderAdapter;
  startedAt: number;
  deployment: string | null;
}

/**
 * Work that goes on after its use case returned, an open stream: what `close` ends when the
 * edge closes the run before the work ended by itself (the writer stopped, the client left).
 */
export interface OpenWork {
  /** Accounts what the work received so far and finishes the run; once, whoever calls it. */
  end(cause: unknown): Promise<unknown>;
}
