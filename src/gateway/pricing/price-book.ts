import type { ModelPrice, ProviderKind } from '../../config/config-types.ts';
import { PROVIDER_KIND_ROWS, type ProviderKindRow } from '../../config/provider-kinds.ts';
import { BoundedCache } from '../../platform/bounded-cache.ts';
import { lookUpContextWindow, lookUpRates } from './compact-price-table.ts';
import { PRICE_TABLES } from './genai-prices-table.generated.ts';

export interface ResolvedPrice {
  price: ModelPrice;
  /** `config`, `genai-prices`, or `none` when the model is not priced anywhere (cost then 0). */
  source: 'config' | 'genai-prices' | 'none';
}

const NO_PRICE: ResolvedPrice = { price: { inputPerMTok: 0, outputPerMTok: 0 }, source: 'none' };

/** Model names are the caller's to invent: the memo keeps this many (provider kind, model) prices. */
export const PRICE_MEMO_ENTRIES = 1_000;

/**
 * Prices per model: configured overrides first, then the maintained table of
 * `@pydantic/genai-prices`, as compact tables extracted at build time (compact-price-table.ts).
 * Lookups are memoised, so the hot path pays a Map read.
 */
export class PriceBook {
  readonly #overrides: Record<string, ModelPrice>;
  readonly #memo = new BoundedCache<string, ResolvedPrice>(PRICE_MEMO_ENTRIES);
  #loaded = false;
  #rows: Readonly<Record<ProviderKind, ProviderKindRow>> = PROVIDER_KIND_ROWS;

  constructor(overrides: Record<string, ModelPrice>) {
    this.#overrides = overrides;
  }

  /** Prices remembered (bounded by PRICE_MEMO_ENTRIES). */
  get memoSize(): number {
    return this.#memo.size;
  }

  /**
   * Checks the rows against the price tables; call once at start-up. A kind whose vendor the
   * tables do not know would price every answer at $0 without a word, so that stops start-up.
   */
  async load(rows: Readonly<Record<ProviderKind, ProviderKindRow>> = PROVIDER_KIND_ROWS): Promise<void> {
    for (const [kind, row] of Object.entries(rows) as [ProviderKind, ProviderKindRow][]) {
      if ('vendor' in row.pricing && !Object.hasOwn(PRICE_TABLES, row.pricing.vendor)) {
        throw new Error(
          `provider kind '${kind}' is priced by vendor '${row.pricing.vendor}', which @pydantic/genai-prices does not know`,
        );
      }
    }
    this.#rows = rows;
    this.#loaded = true;
  }

  resolve(kind: ProviderKind, model: string): ResolvedPrice {
    const key = `${kind}\u0000${model}`;
    let resolved = this.#memo.get(key);
    if (resolved === undefined) {
      resolved = this.#lookup(kind, model);
      this.#memo.set(key, resolved);
    }
    return resolved;
  }

  /**
   * The model's context window in tokens (CONTRACT 6.9): configured with its price, else from the
   * price data; undefined when neither knows it. Only read when an overflow is answered.
   */
  contextWindow(kind: ProviderKind, model: string): number | undefined {
    const override = Object.hasOwn(this.#overrides, model) ? this.#overrides[model] : undefined;
    if (override?.contextWindow !== undefined) return override.contextWindow;
    const pricing = this.#rows[kind].pricing;
    if (!('vendor' in pricing) || !this.#loaded) return undefined;
    return lookUpContextWindow(PRICE_TABLES, pricing.vendor, model);
  }

  #lookup(kind: ProviderKind, model: string): ResolvedPrice {
    // The model name is the caller's: only the table's own entries count, never Object's `constructor`.
    const override = Object.hasOwn(this.#overrides, model) ? this.#overrides[model] : undefined;
    if (override !== undefined) return { price: override, source: 'config' };
    // A kind that carries its own model prices has them among the overrides (the loader puts them there).
    const pricing = this.#rows[kind].pricing;
    if (!('vendor' in pricing) || !this.#loaded) return NO_PRICE;
    // Tiered prices are priced at their base rate (the tiers start past 128k-200k tokens): the
    // extraction keeps only the base.
    const rates = lookUpRates(PRICE_TABLES, pricing.vendor, model);
    if (rates === undefined) return NO_PRICE;
    const price: ModelPrice = { inputPerMTok: rates.input ?? 0, outputPerMTok: rates.output ?? 0 };
    if (rates.cacheRead !== undefined) price.cacheReadPerMTok = rates.cacheRead;
    if (rates.cacheWrite !== undefined) price.cacheWritePerMTok = rates.cacheWrite;
    if (rates.cacheWrite1h !== undefined) price.cacheWrite1hPerMTok = rates.cacheWrite1h;
    return { price, source: 'genai-prices' };
  }
}
