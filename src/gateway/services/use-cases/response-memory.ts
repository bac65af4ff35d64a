import type { UsageSettings } from '../../../config/config-types.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { StoredResponses } from '../../../storage/ports.ts';

const DAY_MS = 86_400_000;

/** A stored Response as the Responses door reads it back. */
export interface RememberedResponse {
  response: Record<string, unknown>;
  inputItems: unknown[];
}

/**
 * The Responses API's `store` (CONTRACT 5.4): answers kept for the app that asked, for
 * `usage.storedResponseDays` (30 by default), at most `storedResponsesPerApp` of them (the oldest
 * go first), each conversation at most `storedResponseMaxBytes` as JSON. Found only by the app
 * that stored them, and only until they expire.
 */
export class ResponseMemory {
  readonly #store: StoredResponses;
  readonly #settings: UsageSettings;
  readonly #clock: Clock;

  constructor(store: StoredResponses, settings: UsageSettings, clock: Clock) {
    this.#store = store;
    this.#settings = settings;
    this.#clock = clock;
  }

  /** The largest conversation, as JSON bytes, that a request with `store: true` may keep. */
  get maxBytes(): number {
    return this.#settings.storedResponseMaxBytes;
  }

  /** Keeps the response and the input items it answered. */
  async keep(app: string, response: Record<string, unknown>, inputItems: readonly unknown[]): Promise<void> {
    const now = this.#clock.now();
    await this.#store.put(
      {
        app,
        id: String(response['id']),
        createdAt: now,
        expiresAt: now + this.#settings.storedResponseDays * DAY_MS,
        response: JSON.stringify(response),
        inputItems: JSON.stringify(inputItems),
      },
      this.#settings.storedResponsesPerApp,
      now,
    );
  }

  async recall(app: string, id: string): Promise<RememberedResponse | undefined> {
    const stored = await this.#store.get(app, id, this.#clock.now());
    if (stored === undefined) return undefined;
    return {
      response: JSON.parse(stored.response) as Record<string, unknown>,
      inputItems: JSON.parse(stored.inputItems) as unknown[],
    };
  }

  forget(app: string, id: string): Promise<boolean> {
    return this.#store.delete(app, id);
  }
}
