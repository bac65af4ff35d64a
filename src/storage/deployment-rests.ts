/**
 * Deployment rests shared between the workers of one instance (CONTRACT 6.8): a deployment that
 * answered 429 or failed rests in every worker, not only in the one that saw it. Durations, not
 * instants, travel: each process's monotonic clock has its own origin.
 */
export interface SharedRests {
  /** This process rests `key` for `restMs` from now (0: it answered and is awake again). */
  announce(key: string, restMs: number): void;
  /** `apply` receives what the other workers announce. */
  listen(apply: (key: string, restMs: number) => void): void;
}
