/**
 * How deep a parsed or written value may nest to cross between threads. A structured clone is
 * written and read recursively: a body nested thousands of levels (a hostile JSON Schema) would
 * overflow the stack of the thread that writes it or of the one that reads it. No request the
 * gateway accepts comes near (tool schemas are refused past 48 levels); past this, the body is
 * read or written on the event loop, as it was before the JSON thread, and refused there as before.
 */
export const MAX_CROSSING_DEPTH = 128;

/** Whether `value` nests more than `limit` levels of objects and arrays (walked without recursion). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= limit) return true;
    if (Array.isArray(item)) for (const element of item) stack.push([element, depth + 1]);
    else for (const key in item) stack.push([(item as Record<string, unknown>)[key], depth + 1]);
  }
  return false;
}
