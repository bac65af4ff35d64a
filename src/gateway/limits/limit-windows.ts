/** Fixed windows, aligned in UTC, that the limits count in. Pure: the time comes in. */
export interface LimitWindow {
  /** Part of the counter key: the window's identity. */
  id: string;
  /** Epoch ms when the window ends. */
  resetAt: number;
}

export function minuteWindow(now: number): LimitWindow {
  const start = Math.floor(now / 60_000) * 60_000;
  return { id: `m${start / 60_000}`, resetAt: start + 60_000 };
}

export function dayWindow(now: number): LimitWindow {
  const date = new Date(now);
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  return { id: `d${new Date(start).toISOString().slice(0, 10)}`, resetAt: start + 86_400_000 };
}

export function monthWindow(now: number): LimitWindow {
  const date = new Date(now);
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  return {
    id: `M${new Date(start).toISOString().slice(0, 7)}`,
    resetAt: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1),
  };
}

/** Budgets are counted in nano-dollars so counters stay integers (exact in Redis INCRBY). */
export function toNanoDollars(usd: number): number {
  return Math.ceil(usd * 1e9);
}
