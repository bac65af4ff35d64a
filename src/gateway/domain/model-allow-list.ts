/**
 * Model allow lists (CONTRACT 6.5, 6.9): patterns, `*` matching any run of characters, over what
 * a request names: its requested model name, its `slot/model` and its task (route). A request is
 * allowed when every list that applies (the app's, the team's) matches one of them. Pure.
 */

/** What a request names, as the lists are matched against it. */
export interface ModelRequestNames {
  /** The name the client asked for (a door's `model` field, the native `model`), if any. */
  requested?: string | undefined;
  /** The task or route it runs (`default` when it runs the default route). */
  task?: string | undefined;
}

export const MAX_ALLOW_PATTERNS = 200;
export const MAX_PATTERN_LENGTH = 256;
/** Printable ASCII without spaces: model ids, slot/model pins, route names, and `*`. */
const PATTERN = /^[\x21-\x7e]+$/;

/** Why a list cannot be used (for the admin API's 400 and the configuration's error), or undefined. */
export function checkAllowList(patterns: unknown): string | undefined {
  if (!Array.isArray(patterns)) return 'must be an array of patterns';
  if (patterns.length > MAX_ALLOW_PATTERNS) return `may hold at most ${MAX_ALLOW_PATTERNS} patterns`;
  for (const [index, pattern] of patterns.entries()) {
    if (typeof pattern !== 'string' || pattern === '') return `item ${index}: must be a non-empty string`;
    if (pattern.length > MAX_PATTERN_LENGTH)
      return `item ${index}: must be at most ${MAX_PATTERN_LENGTH} characters`;
    if (!PATTERN.test(pattern))
      return `item ${index}: may hold printable characters without spaces only (* matches any run)`;
  }
  return undefined;
}

/**
 * Whether `pattern` matches all of `value`; `*` matches any run of characters, '/' included.
 * Linear in practice: the last star is the only one ever backtracked to (the classic wildcard
 * walk), so a pattern of many stars costs no more than its length times the value's.
 */
export function matchesPattern(pattern: string, value: string): boolean {
  let p = 0;
  let v = 0;
  let star = -1;
  let mark = 0;
  while (v < value.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === value[v]) {
      p++;
      v++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      mark = v;
    } else if (star !== -1) {
      p = star + 1;
      v = ++mark;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/** Whether any pattern of the list matches the value. */
export function listMatches(patterns: readonly string[], value: string): boolean {
  for (const pattern of patterns) if (matchesPattern(pattern, value)) return true;
  return false;
}

/** Whether a list (undefined: no list, everything allowed) matches a request's names or `slot/model`. */
export function allowsNames(
  patterns: readonly string[] | undefined,
  names: ModelRequestNames,
  slotModel: string | undefined,
): boolean {
  if (patterns === undefined) return true;
  if (names.requested !== undefined && listMatches(patterns, names.requested)) return true;
  if (names.task !== undefined && listMatches(patterns, names.task)) return true;
  return slotModel !== undefined && listMatches(patterns, slotModel);
}

/**
 * The candidates a request may use under the lists: all of them when every list matches the
 * requested name or the task; otherwise those whose `slot/model` every list not matched by name
 * matches. Empty: the request is refused.
 */
export function allowedCandidates<C extends { provider: string; model: string }>(
  lists: readonly (readonly string[] | undefined)[],
  names: ModelRequestNames,
  candidates: readonly C[],
): readonly C[] {
  const open = lists.filter(
    (list): list is readonly string[] => list !== undefined && !allowsNames(list, names, undefined),
  );
  if (open.length === 0) return candidates;
  return candidates.filter((c) => open.every((list) => listMatches(list, `${c.provider}/${c.model}`)));
}
