/**
 * The orders in which a slot's deployments are tried (CONTRACT 5.6), as pure functions of what is
 * known of them and of random draws in [0, 1) passed in: the balancer (gateway/balancing/) keeps
 * the state and calls these.
 */

/**
 * Weighted random order without replacement: each item draws an exponential time with rate
 * `weight` (−ln u / w) and the earliest goes first, so the first is item i with probability
 * w_i / Σw, and each next one likewise among those left (Efraimidis and Spirakis). An item of
 * weight 0 comes after every item of positive weight.
 */
export function orderByWeight<T extends { weight: number }>(items: readonly T[], random: () => number): T[] {
  if (items.length < 2) return [...items];
  const keyed = items.map((item) => ({
    item,
    // 1 - u is in (0, 1], so the logarithm is finite; weight 0 gives Infinity: last.
    key: item.weight > 0 ? -Math.log(1 - random()) / item.weight : Number.POSITIVE_INFINITY,
  }));
  keyed.sort((a, b) => a.key - b.key);
  return keyed.map((entry) => entry.item);
}

/** A uniformly random order (Fisher-Yates). */
export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const shuffled = [...items];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j] as T, shuffled[i] as T];
  }
  return shuffled;
}

/**
 * Rendezvous (highest random weight) order for a session: each item scores a hash of the session
 * key and the item's own key, highest first. The same key always gives the same order over the same items,
 * and taking one item away moves only the sessions it was first for, each to its own second
 * choice: the other sessions keep their deployment, and their upstream's prompt cache.
 */
export function orderBySession<T extends { key: string }>(items: readonly T[], sessionKey: string): T[] {
  if (items.length < 2) return [...items];
  const prefix = hashText('\u0000', hashText(sessionKey, FNV_OFFSET));
  const keyed = items.map((item) => ({ item, score: mix(hashText(item.key, prefix)) }));
  // Ties (one in 2^32) fall back to the key, so the order never depends on the items' order.
  keyed.sort((a, b) => b.score - a.score || (a.item.key < b.item.key ? -1 : 1));
  return keyed.map((entry) => entry.item);
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over UTF-16 code units, continuing from `hash`. */
function hashText(text: string, hash: number): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}

/** MurmurHash3's finaliser: FNV's low bits are poor, and every bit of the score matters. */
function mix(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** What the latency order knows of an item: its score in ms (undefined: never measured). */
export interface LatencyScore<T> {
  item: T;
  scoreMs: number | undefined;
}

/** Items within this of the best score share the traffic: 20 % above it, plus 5 ms. */
export const NEAR_BEST_RATIO = 1.2;
export const NEAR_BEST_MS = 5;

/**
 * Lowest latency first. Items never measured go first (in random order), so each is measured;
 * items whose score is near the best (NEAR_BEST_*) are shuffled among themselves, so equally fast
 * deployments share the traffic rather than one taking it all; the rest follow, fastest first.
 */
export function orderByLatency<T>(scored: readonly LatencyScore<T>[], random: () => number): T[] {
  const unmeasured = scored.filter((entry) => entry.scoreMs === undefined).map((entry) => entry.item);
  const measured = scored
    .filter((entry): entry is { item: T; scoreMs: number } => entry.scoreMs !== undefined)
    .sort((a, b) => a.scoreMs - b.scoreMs);
  const best = measured[0]?.scoreMs ?? 0;
  const limit = best * NEAR_BEST_RATIO + NEAR_BEST_MS;
  const near = measured.filter((entry) => entry.scoreMs <= limit).map((entry) => entry.item);
  const far = measured.filter((entry) => entry.scoreMs > limit).map((entry) => entry.item);
  return [...shuffle(unmeasured, random), ...shuffle(near, random), ...far];
}
