import { MAX_CROSSING_DEPTH } from '../../../platform/json-thread/json-depth.ts';
import { type JsonThread, OFF_THREAD_BYTES } from '../../../platform/json-thread/json-thread.ts';
import { jsonBody } from './json-body-bytes.ts';

/** Past this many values walked, a body is written on the event loop as before (a cycle ends here too). */
const MAX_WALKED = 100_000;

/**
 * An upstream request's JSON body: a large one (OFF_THREAD_BYTES characters of text or more, an
 * agent's long history or a megabyte prompt) written on the JSON thread, so the event loop is not
 * held for the milliseconds that takes; any other, or any the thread cannot write (it died, or the
 * value holds what a structured clone cannot carry), as `jsonBody` writes it here. Both give the
 * bytes `JSON.stringify` gives.
 */
export function upstreamBody(value: unknown, thread: JsonThread): string | Buffer | Promise<string | Buffer> {
  if (!isLargePlainJson(value, OFF_THREAD_BYTES)) return jsonBody(value);
  return thread.stringify(value).catch(() => jsonBody(value));
}

/**
 * Whether `value` holds `minChars` characters of strings or more, and is made only of what a
 * structured clone carries as JSON.stringify reads it: plain objects and arrays without `toJSON`,
 * strings, numbers, booleans, null and undefined, nested at most MAX_CROSSING_DEPTH levels.
 * Anything else (a Date, a class instance, a BigInt, a function, a value nested deeper) keeps the
 * body on the event loop, where JSON.stringify treats it as it always did.
 */
export function isLargePlainJson(value: unknown, minChars: number): boolean {
  let chars = 0;
  let walked = 0;
  // Two stacks side by side rather than one of [value, depth] pairs: a pair per value walked was
  // about 700 bytes of garbage on every chat request (bench/allocations.ts).
  const items: unknown[] = [value];
  const depths: number[] = [0];
  while (items.length > 0) {
    const item = items.pop();
    const depth = depths.pop() as number;
    if (++walked > MAX_WALKED) return false;
    if (typeof item === 'string') chars += item.length;
    else if (typeof item === 'object' && item !== null) {
      if (depth >= MAX_CROSSING_DEPTH || !isPlainContainer(item)) return false;
      if (Array.isArray(item))
        for (const element of item) {
          items.push(element);
          depths.push(depth + 1);
        }
      else
        for (const key in item) {
          items.push((item as Record<string, unknown>)[key]);
          depths.push(depth + 1);
        }
    } else if (typeof item !== 'number' && typeof item !== 'boolean' && item !== undefined) return false;
  }
  return chars >= minChars;
}

function isPlainContainer(item: object): boolean {
  if (typeof (item as { toJSON?: unknown }).toJSON === 'function') return false;
  const prototype = Object.getPrototypeOf(item);
  return Array.isArray(item)
    ? prototype === Array.prototype
    : prototype === Object.prototype || prototype === null;
}
