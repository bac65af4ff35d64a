/**
 * The price book's view of `@pydantic/genai-prices`: only the vendors the provider kinds name and
 * only the five rates the book reads, extracted at build time (scripts/extract-prices.ts) into
 * `genai-prices-table.generated.ts`. The package itself is about 800 kB of JavaScript whose data
 * cost the process some 18 MB of RSS; these tables cost well under 1 MB. The lookup follows the
 * package's own `calcPrice` for a named provider (a test compares the two over every model).
 */

/** A model-name rule, as the package writes it. */
export type MatchRule =
  | { or: readonly MatchRule[] }
  | { and: readonly MatchRule[] }
  | { equals: string }
  | { starts_with: string }
  | { ends_with: string }
  | { contains: string }
  | { regex: string };

/**
 * Per million tokens: input, output, cache read, cache write (the package's `cache_write_mtok`,
 * Anthropic's 5-minute write rate) and 1-hour cache write; null where the model has none.
 */
export type RateRow = readonly [
  input: number | null,
  output: number | null,
  cacheRead: number | null,
  cacheWrite: number | null,
  cacheWrite1h: number | null,
];

/** Rates that changed on a date: `[startDate, rates]`, oldest first; a null date means "from the start". */
export type DatedRates = readonly (readonly [startDate: string | null, rates: RateRow])[];

export interface VendorTable {
  /** Vendors whose models this one also serves (Gemini serves Claude on Vertex). */
  fallbacks: readonly string[];
  models: readonly (readonly [rule: MatchRule, rates: RateRow | DatedRates, contextWindow?: number | null])[];
}

export interface Rates {
  input: number | undefined;
  output: number | undefined;
  cacheRead: number | undefined;
  cacheWrite: number | undefined;
  cacheWrite1h: number | undefined;
}

const compiled = new WeakMap<object, RegExp>();

function matches(rule: MatchRule, name: string): boolean {
  if ('or' in rule) return rule.or.some((inner) => matches(inner, name));
  if ('and' in rule) return rule.and.every((inner) => matches(inner, name));
  if ('equals' in rule) return name === rule.equals.toLowerCase();
  if ('starts_with' in rule) return name.startsWith(rule.starts_with.toLowerCase());
  if ('ends_with' in rule) return name.endsWith(rule.ends_with.toLowerCase());
  if ('contains' in rule) return name.includes(rule.contains.toLowerCase());
  let pattern = compiled.get(rule);
  if (pattern === undefined) {
    pattern = new RegExp(rule.regex);
    compiled.set(rule, pattern);
  }
  return pattern.test(name);
}

type Tables = Readonly<Record<string, VendorTable>>;

type ModelEntry = VendorTable['models'][number];

function findModel(
  tables: Tables,
  table: VendorTable,
  name: string,
  withFallbacks: boolean,
): ModelEntry | undefined {
  for (const entry of table.models) if (matches(entry[0], name)) return entry;
  if (!withFallbacks) return undefined;
  for (const id of table.fallbacks) {
    const fallback = tables[id];
    const found = fallback === undefined ? undefined : findModel(tables, fallback, name, false);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** `gpt-4o-20240806` is also looked up as `gpt-4o-2024-08-06`, as the package does. */
const COMPACT_DATE = /(-)(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?=-|:|$)/g;

function withDashedDates(name: string): string {
  return name.replace(COMPACT_DATE, (whole, dash: string, year: string, month: string, day: string) => {
    const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
    const real = date.getUTCFullYear() === Number(year) && date.getUTCMonth() === Number(month) - 1;
    return real && date.getUTCDate() === Number(day) ? `${dash}${year}-${month}-${day}` : whole;
  });
}

function isRow(rates: RateRow | DatedRates): rates is RateRow {
  return !Array.isArray(rates[0]);
}

function ratesAt(rates: RateRow | DatedRates, now: Date): RateRow {
  if (isRow(rates)) return rates;
  for (let i = rates.length - 1; i >= 0; i--) {
    const [start, row] = rates[i] as DatedRates[number];
    if (start === null || now >= new Date(start)) return row;
  }
  return (rates[0] as DatedRates[number])[1];
}

function lookUpModel(tables: Tables, vendor: string, model: string): ModelEntry | undefined {
  const table = tables[vendor];
  if (table === undefined) return undefined;
  const name = model.toLowerCase().trim();
  const found = findModel(tables, table, name, true);
  if (found !== undefined) return found;
  const dashed = withDashedDates(name);
  return dashed === name ? undefined : findModel(tables, table, dashed, true);
}

/** The context window of `model` at `vendor` in tokens, or undefined when the table has none. */
export function lookUpContextWindow(tables: Tables, vendor: string, model: string): number | undefined {
  return lookUpModel(tables, vendor, model)?.[2] ?? undefined;
}

/** The rates of `model` at `vendor`, or undefined when the table has no such model. */
export function lookUpRates(
  tables: Tables,
  vendor: string,
  model: string,
  now = new Date(),
): Rates | undefined {
  const found = lookUpModel(tables, vendor, model)?.[1];
  if (found === undefined) return undefined;
  const [input, output, cacheRead, cacheWrite, cacheWrite1h] = ratesAt(found, now);
  return {
    input: input ?? undefined,
    output: output ?? undefined,
    cacheRead: cacheRead ?? undefined,
    cacheWrite: cacheWrite ?? undefined,
    cacheWrite1h: cacheWrite1h ?? undefined,
  };
}
