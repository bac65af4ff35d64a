import { createHash } from 'node:crypto';
import type { ResponseCacheConfig } from '../../../config/config-types.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { ResponseCacheStore } from '../../../storage/response-cache-store.ts';
import { canonicalJson } from '../../domain/canonical-json.ts';
import { writeCanonicalJson } from '../../domain/canonical-json-digest.ts';
import type { FinishReason, ToolCall } from '../../domain/messages.ts';
import type { ReportedUsage } from '../../domain/reported-usage.ts';
import type { PlannedCandidate } from '../../domain/routing.ts';
import type { ResponseUsage } from '../../domain/usage.ts';
import type { ChatInput, JsonInput } from '../../domain/use-case-inputs.ts';

/** The request header that asks for the cache (CONTRACT 5.5), and the answer header that says what it did. */
export const CACHE_HEADER = 'x-gateway-cache';
/** On a hit: what the original answer cost, which this one did not. */
export const CACHE_SAVED_HEADER = 'x-gateway-cache-saved-usd';

/** What a request may ask: `use` (read and write), `bypass` (neither), `refresh` (write only). */
export type CacheRequest = 'use' | 'bypass' | 'refresh';
const CACHE_REQUESTS: readonly string[] = ['use', 'bypass', 'refresh'];

/** What the cache does for one request; `undefined` where it is off and the request did not ask. */
export interface CachePolicy {
  read: boolean;
  write: boolean;
  ttlMs: number;
}

/**
 * A run's outcome as the cache keeps it: the answer without the request's own id and timing,
 * with the usage (and cost) it had, and, for a stream, the prompt's counts its start carried.
 */
export interface CachedAnswer {
  provider: string;
  model: string;
  content: string;
  toolCalls?: ToolCall[];
  finishReason: FinishReason;
  stopSequence?: string;
  usage: ResponseUsage;
  promptUsage?: ReportedUsage;
}

/**
 * A relayed answer as the cache keeps it (the Anthropic door's same-vendor lane, decision 0021's
 * amendment): the upstream's Messages JSON as it wrote it (a whole answer) or rebuilt from its
 * events (a stream), who answered, and what the request cost.
 */
export interface RelayedCacheEntry {
  kind: 'relayed';
  provider: string;
  model: string;
  message: string;
  costUsd: number;
  /**
   * A stream's usage as its message_start and last message_delta said it (the message holds
   * them merged), so that a stream hit says the counts in the same events; absent for a whole answer.
   */
  streamUsage?: { start: unknown; delta: unknown };
  /** What the serving cloud left out (`x-gateway-ignored-fields`), said again on a hit. */
  ignoredFields?: string;
}

/**
 * A structured answer as the cache keeps it (`/v1/json`, a door's `response_format`): who
 * answered, the validated value, the text it was read from, and the usage (and cost) of every
 * call it took, re-asks included.
 */
export interface CachedJsonAnswer {
  kind: 'json';
  provider: string;
  model: string;
  data: unknown;
  raw: string;
  usage: ResponseUsage;
}

/**
 * The form of an entry, part of every key: instances of a later version that keeps entries in
 * another form, sharing one Redis with these, read none of these entries, and these none of theirs.
 */
const ENTRY_VERSION = 1;

/** Why an answer ended that makes it worth keeping: a filtered or unexplained end is not. */
const KEPT_FINISH_REASONS: ReadonlySet<FinishReason> = new Set(['stop', 'length', 'tool_calls']);

/**
 * The response cache (CONTRACT 5.5): which requests it serves (the configuration per app and
 * route, and the request's `x-gateway-cache`), the key of a request, its entries in a store
 * (bounded per entry), and, when configured, requests that wait for an identical one in flight
 * (coalescing, in this process).
 */
export class ResponseCache {
  readonly #settings: ResponseCacheConfig;
  readonly #taskRoutes: Readonly<Record<string, unknown>>;
  readonly #store: ResponseCacheStore;
  // One map for every kind of entry: their keys differ (`use` is part of every key).
  readonly #inFlight = new Map<string, Promise<unknown>>();

  /** `taskRoutes`: the configured task routes (routing.tasks), which decide a request's route. */
  constructor(
    settings: ResponseCacheConfig,
    taskRoutes: Readonly<Record<string, unknown>>,
    store: ResponseCacheStore,
  ) {
    this.#settings = settings;
    this.#taskRoutes = taskRoutes;
    this.#store = store;
  }

  get coalescing(): boolean {
    return this.#settings.coalesce;
  }

  /** The largest entry kept, in bytes: what a stream being kept may gather before it gives up. */
  get maxEntryBytes(): number {
    return this.#settings.maxEntryBytes;
  }

  /**
   * What the cache does for a request of `app` on `task`'s route, given its `x-gateway-cache`
   * header (a 400 for any other value than the three): the header wins, then the app's setting,
   * then the route's, then the default.
   */
  policyFor(
    app: string,
    task: string | undefined,
    header: string | string[] | undefined,
  ): CachePolicy | undefined {
    const requested = readCacheRequest(header);
    const settings = this.#settings;
    const own = Object.hasOwn(settings.apps, app) ? settings.apps[app] : undefined;
    const route =
      task !== undefined && Object.hasOwn(this.#taskRoutes, task)
        ? settings.routes.tasks[task]
        : settings.routes.chat;
    const enabled = own?.enabled ?? route?.enabled ?? settings.enabled;
    if (requested === undefined && !enabled) return undefined;
    const ttlMs = (own?.ttlSeconds ?? route?.ttlSeconds ?? settings.ttlSeconds) * 1000;
    if (requested === 'bypass') return { read: false, write: false, ttlMs };
    return { read: requested !== 'refresh', write: true, ttlMs };
  }

  /**
   * The key of a chat request: a SHA-256 over the app, the planned candidates (slot and model) and
   * the chat input without `stream` and `metadata` (which the native body carries), canonically
   * serialised, so that every field that changes the answer is in it, including fields a door
   * adds later. The app comes first: one app never reads another's entry.
   */
  keyOf(app: string, input: ChatInput, candidates: readonly PlannedCandidate[]): string {
    return inputKey(app, 'chat', input, candidates);
  }

  /**
   * The key of a structured-output request: as a chat's, over the whole JSON input (schema,
   * schema name, messages, parameters), under `use: "json"`, so that a chat and a structured
   * request with the same messages never share an entry.
   */
  jsonKeyOf(app: string, input: JsonInput, candidates: readonly PlannedCandidate[]): string {
    return inputKey(app, 'json', input, candidates);
  }

  /**
   * The key of a relayed request (the same-vendor lane): a SHA-256 over the app, the planned
   * candidates, the headers forwarded with the body (`anthropic-version`, `anthropic-beta`: betas
   * change answers) and the client's body without `model` (the candidates say what it resolved
   * to), `stream` and `metadata`, canonically serialised. The body is written into the hash in one
   * pass, never as a second whole text, whatever its size.
   */
  relayKeyOf(
    app: string,
    candidates: readonly PlannedCandidate[],
    headers: Readonly<Record<string, string>>,
    body: Readonly<Record<string, unknown>>,
  ): string {
    const { model: _model, stream: _stream, metadata: _metadata, ...asked } = body;
    const hash = createHash('sha256');
    // Canonical JSON holds no raw newline: the two parts cannot run into each other.
    hash.update(canonicalJson({ entry: ENTRY_VERSION, app, use: 'relay', candidates, headers }));
    hash.update('\n');
    writeCanonicalJson(asked, hash);
    return hash.digest('hex');
  }

  /** The relayed entry under `key`, or undefined (absent, expired, unreadable, or the store lost). */
  async readRelayed(key: string): Promise<RelayedCacheEntry | undefined> {
    const text = await this.#store.get(key);
    return text === undefined ? undefined : parseRelayedEntry(text);
  }

  /** Keeps a complete relayed answer (its caller judged it complete), within the entry bound. */
  rememberRelayed(key: string, entry: RelayedCacheEntry, ttlMs: number): void {
    this.#write(key, entry, ttlMs);
  }

  /** The structured answer under `key`, or undefined (absent, expired, unreadable, another kind, the store lost). */
  async readJson(key: string): Promise<CachedJsonAnswer | undefined> {
    const text = await this.#store.get(key);
    return text === undefined ? undefined : parseJsonEntry(text);
  }

  /** Keeps a validated structured answer (its caller has `data` only when it validated), within the entry bound. */
  rememberJson(key: string, entry: CachedJsonAnswer, ttlMs: number): void {
    this.#write(key, entry, ttlMs);
  }

  /** The entry under `key`, or undefined (absent, expired, unreadable, or the store lost). */
  async read(key: string): Promise<CachedAnswer | undefined> {
    const text = await this.#store.get(key);
    return text === undefined ? undefined : parseEntry(text);
  }

  /**
   * Keeps a complete answer under `key` for `ttlMs`, unless it is larger than an entry may be.
   * Not awaited by the request: the store's write happens after the answer.
   */
  remember(key: string, answer: CachedAnswer, ttlMs: number): void {
    if (!KEPT_FINISH_REASONS.has(answer.finishReason)) return;
    this.#write(key, answer, ttlMs);
  }

  /** An entry's text into the store, unless it is larger than an entry may be; a failed write is not kept. */
  #write(key: string, entry: object, ttlMs: number): void {
    const text = JSON.stringify(entry);
    if (Buffer.byteLength(text) > this.#settings.maxEntryBytes) return;
    void this.#store.set(key, text, ttlMs).catch(() => {});
  }

  /**
   * With coalescing: the answer of an identical request in flight, once it ends (undefined when it
   * failed, or when this request's client left first); undefined at once when none is in flight.
   * Synchronous until then, so that a caller that finds none can `lead` before any other turn.
   */
  follow<T = CachedAnswer>(key: string, signal: AbortSignal): Promise<T | undefined> | undefined {
    const leader = this.#inFlight.get(key) as Promise<T | undefined> | undefined;
    if (leader === undefined || signal.aborted) return undefined;
    return untilAborted(leader, signal);
  }

  /**
   * With coalescing: this request goes upstream for `key`; identical ones that arrive meanwhile
   * wait for what `settle` gives them (once; undefined sends them upstream themselves). Without
   * coalescing, or when another leads already, a no-op. `kept` says which answers followers take.
   */
  lead<T extends object = CachedAnswer>(
    key: string,
    kept: (answer: T) => boolean = isKeptAnswer as unknown as (answer: T) => boolean,
  ): (answer: T | undefined) => void {
    if (!this.#settings.coalesce || this.#inFlight.has(key)) return NO_LEAD;
    let resolve: (answer: T | undefined) => void = NO_LEAD;
    this.#inFlight.set(
      key,
      new Promise((settle) => {
        resolve = settle;
      }),
    );
    let settled = false;
    return (answer) => {
      if (settled) return;
      settled = true;
      this.#inFlight.delete(key);
      resolve(answer !== undefined && kept(answer) ? answer : undefined);
    };
  }
}

const NO_LEAD = (): void => {};

/** The key of a request answered from its domain input: `use` says which kind of entry it reads. */
function inputKey(
  app: string,
  use: 'chat' | 'json',
  input: ChatInput | JsonInput,
  candidates: readonly PlannedCandidate[],
): string {
  const {
    stream: _stream,
    metadata: _metadata,
    ...asked
  } = input as (ChatInput | JsonInput) & {
    stream?: unknown;
    metadata?: unknown;
  };
  const text = canonicalJson({ entry: ENTRY_VERSION, app, use, candidates, input: asked });
  return createHash('sha256').update(text).digest('hex');
}

function isKeptAnswer(answer: CachedAnswer): boolean {
  return KEPT_FINISH_REASONS.has(answer.finishReason);
}

/** `work`'s value, or undefined as soon as `signal` aborts. */
async function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  let onAbort: (() => void) | undefined;
  const left = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, left]);
  } finally {
    signal.removeEventListener('abort', onAbort as () => void);
  }
}

/** The request's `x-gateway-cache`, or the 400 that names the values it may have. */
function readCacheRequest(header: string | string[] | undefined): CacheRequest | undefined {
  if (header === undefined) return undefined;
  const value = typeof header === 'string' ? header.trim().toLowerCase() : undefined;
  if (value !== undefined && CACHE_REQUESTS.includes(value)) return value as CacheRequest;
  const message = `${CACHE_HEADER} must be one of use, bypass, refresh`;
  throw new ApiError('invalid_request', message, { details: [{ path: `header/${CACHE_HEADER}`, message }] });
}

/** An entry's text as an answer; anything else (another version's, a damaged one) is a miss. */
function parseEntry(text: string): CachedAnswer | undefined {
  try {
    const entry = JSON.parse(text) as CachedAnswer;
    return typeof entry?.content === 'string' && hasOriginAndUsage(entry) ? entry : undefined;
  } catch {
    return undefined;
  }
}

/** A structured entry's text, or undefined for anything else (another kind, another version's, damaged). */
function parseJsonEntry(text: string): CachedJsonAnswer | undefined {
  try {
    const entry = JSON.parse(text) as CachedJsonAnswer;
    return entry?.kind === 'json' &&
      typeof entry.raw === 'string' &&
      'data' in entry &&
      hasOriginAndUsage(entry)
      ? entry
      : undefined;
  } catch {
    return undefined;
  }
}

/** Who answered, and a usage with its cost: what every entry of the run's outcome has. */
function hasOriginAndUsage(entry: { provider: unknown; model: unknown; usage: unknown }): boolean {
  const usage = entry.usage as { estimatedCost?: unknown } | null;
  return (
    typeof entry.provider === 'string' &&
    typeof entry.model === 'string' &&
    typeof usage === 'object' &&
    usage !== null &&
    typeof usage.estimatedCost === 'number'
  );
}

/** A relayed entry's text, or undefined for anything else (the other kind, another version's, damaged). */
function parseRelayedEntry(text: string): RelayedCacheEntry | undefined {
  try {
    const entry = JSON.parse(text) as RelayedCacheEntry;
    if (
      entry?.kind !== 'relayed' ||
      typeof entry.message !== 'string' ||
      typeof entry.provider !== 'string' ||
      typeof entry.model !== 'string' ||
      typeof entry.costUsd !== 'number'
    )
      return undefined;
    // A hit may be replayed as a stream, which reads the message: one that is not a JSON object is a miss.
    const message: unknown = JSON.parse(entry.message);
    return typeof message === 'object' && message !== null && !Array.isArray(message) ? entry : undefined;
  } catch {
    return undefined;
  }
}
