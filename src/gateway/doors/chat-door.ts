import type { FastifyRequest } from 'fastify';
import type { ProviderKind } from '../../config/config-types.ts';
import type { FrontDoor, RelayWire } from '../domain/messages.ts';
import type { SessionFields } from '../domain/session-key.ts';
import type { ChatInput, JsonInput } from '../domain/use-case-inputs.ts';
import type { RelayedCacheEntry } from '../services/response-cache/response-cache.ts';
import type { RelayKeeper } from '../services/response-cache/run-cached-messages.ts';
import type { RelayOut } from '../services/run/relay-stream.ts';
import type { ChatAnswer } from '../services/use-cases/run-chat.ts';
import type { ChatStream } from '../services/use-cases/run-chat-stream.ts';

/**
 * A chat request read through a door, in the gateway's words: the use case it goes to (the chat,
 * or the JSON one for a door that asks for structured output, OpenAI's `response_format`), its
 * input, and what the edge needs to know to serve it.
 */
export type DoorChatRequest = ({ use: 'chat'; input: ChatInput } | { use: 'json'; input: JsonInput }) & {
  /**
   * A vendor door's `model` field: resolved by `serveChat` to the input's provider, model and
   * task (CONTRACT 4.2). Undefined where the body addresses the route itself (the native API).
   */
  model?: string | undefined;
  stream: boolean;
  /** Kept in the gateway's records. */
  metadata: Record<string, unknown> | undefined;
  /** What the body names of a session (CONTRACT 5.6); the headers are read for every door. */
  session?: SessionFields | undefined;
};

/** What a door's answer may need of its request besides the answer itself. */
export interface AnswerContext {
  requestId: string;
  /** Epoch ms when the request reached the gateway. */
  receivedAt: number;
}

/** A whole answer in a door's shape: the headers its vendor's body has no room for, and the body. */
export interface DoorAnswer {
  headers: Readonly<Record<string, string>>;
  body: unknown;
  /** For a body already written as JSON text or bytes, which Fastify would not name JSON. */
  contentType?: string;
}

/**
 * A front door's chat, in pure parts that `serveChat` puts together: everything that differs
 * between two doors, and nothing of the request's life (the run, its limits, its record, the
 * writing of a stream), which is the same on every door and written once. `R` is the door's own
 * reading of a request, which its answer and frames get back (OpenAI's `include_usage`,
 * Anthropic's `disable_parallel_tool_use`).
 */
export interface ChatDoor<R extends DoorChatRequest> {
  /** The ledger's `front_door`. */
  frontDoor: FrontDoor;
  /** The body, read and checked: throws the door's 400s for what it cannot carry. */
  read(body: unknown): R;
  /**
   * A fault the shared tool validation found, named by JSON Pointers into the ChatInput, renamed
   * to the fields the client wrote (or the error as it is, when the two agree); given the
   * request read, for a door whose translation moved fields (the Responses door's items), where
   * the caller has it (the Anthropic door's same-vendor lane reads no request).
   */
  renameFault(error: unknown, request?: R): unknown;
  /**
   * Headers on every answer, streamed or not: Anthropic's `request-id`, the Responses door's
   * `x-gateway-ignored-tools` (which depends on the request).
   */
  headers(context: AnswerContext, request?: R): Readonly<Record<string, string>>;
  /** A whole answer as the door's body, with the headers it needs (the cost). */
  answer(answer: ChatAnswer, request: R, context: AnswerContext): DoorAnswer;
  /** The stream as server-sent frames; the generator's return value is the last of them. */
  frames(stream: ChatStream, request: R, context: AnswerContext): AsyncGenerator<string, string, undefined>;
  /** What an idle stream gets to stay open: a comment, unless the wire format has its own. */
  keepAlive: string;
  /**
   * The door's same-vendor lane, where it has one (CONTRACT 5.2, 6.2): an attempt on a slot of
   * one of its kinds gets the client's body as it came (but `model`) and the client gets the
   * upstream's answer as it came (but the cost); every other attempt reads the body whole
   * (`read`) and answers in the door's translation (`answer`, `frames`).
   */
  passThrough?: PassThrough;
}

/** What a door may read of a request besides its body: its path's parameters, its query, its headers. */
export type DoorRequestLine = Pick<FastifyRequest, 'params' | 'query' | 'headers'>;

/**
 * What routing, limits and accounting need of a body on a same-vendor lane, read without reading
 * it whole: everything else is the upstream's to judge.
 */
export interface PassThroughRequest {
  model: string;
  maxTokens: number;
  stream: boolean;
  /** The body has tools: planning skips slots that cannot call them. */
  tools: boolean;
  /** The prompt's texts (not its media's bytes): the limits' guess and an estimate. */
  texts: readonly string[];
  metadata: Record<string, unknown> | undefined;
  session: SessionFields;
}

/**
 * A door's same-vendor lane, described: which slots take it, what is read of the body, which
 * headers go with it, and how the upstream's own answer, events and a kept answer reach the
 * client. The upstream side (the model spliced into the bytes, the usage read from the answer and
 * its events) is the slot adapter's `relay`.
 */
export interface PassThrough {
  /** The slot kinds whose adapters relay this wire format: their attempts take the lane. */
  slotKinds: readonly ProviderKind[];
  /** The wire format relayed, for a kind that serves two (Vertex): Anthropic's Messages when absent. */
  wire?: RelayWire;
  /**
   * The body read lightly (the door's 400s for what routing cannot do without); the request's
   * route parameters and query for a door whose model or stream is in its path (Gemini's).
   */
  read(body: unknown, request: DoorRequestLine): PassThroughRequest;
  /** The body's bytes as they arrived (the door's JSON parser keeps them), when it has them. */
  bytes(request: FastifyRequest): Buffer | undefined;
  /** The client's headers that go upstream as it sent them. */
  forwardedHeaders: readonly string[];
  /**
   * Whether the output guards can read this lane's own answer and events (guard-relay.ts reads
   * Anthropic's). A lane that cannot is not taken when an output guard applies: the request goes
   * the translated way, whose answer every output guard reads (CONTRACT 6.6).
   */
  outputGuardable: boolean;
  /** The upstream's whole answer (its text) with the request's cost. */
  answer(text: string, costUsd: number): DoorAnswer;
  /** The upstream's events as server-sent frames, the cost added where the format carries it. */
  frames(events: AsyncGenerator<RelayOut, void, undefined>): AsyncGenerator<string, string, undefined>;
  /**
   * How the response cache judges and rebuilds this lane's answers (its wire format); absent for
   * Anthropic's Messages (MESSAGES_KEEPER), the first lane.
   */
  keeper?: RelayKeeper;
  /** A kept upstream answer replayed as the stream a miss gives (cost 0). */
  replay(
    message: string,
    streamUsage?: RelayedCacheEntry['streamUsage'],
  ): AsyncGenerator<string, string, undefined>;
}

export const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
