import type { ModelPrice, ProviderKind } from '../../config/config-types.ts';
import { PROVIDER_KIND_ROWS, type ProviderKindRow } from '../../config/provider-kinds.ts';
import { BoundedCache } from '../../platform/bounded-cache.ts';

export interface ResolvedPrice {
  price: ModelPrice;
  /** `config`, `genai-prices`, or `none` when the model is not priced anywhere (cost then 0). */
  source: 'config' | 'genai-prices' | 'none';
}

type PriceTable = typeof import('@pydantic/genai-prices');
type CalcPrice = PriceTable['calcPrice'];
const NO_PRICE: ResolvedPrice = { price: { inputPerMTok: 0, outputPerMTok: 0 }, source: 'none' };

/** Model names are the caller's to invent: the memo keeps this many (provider kind, model) prices. */
export const PRICE_MEMO_ENTRIES = 1_000;

/**
 * Prices per model: configured overrides first, then the maintained table of
 * `@pydantic/genai-prices`. Lookups are memoised, so the hot path pays a Map read.
 */
export class PriceBook {
  readonly #overrides: Record<string, ModelPrice>;
  readonly #memo = new BoundedCache<string, ResolvedPrice>(PRICE_MEMO_ENTRIES);
  #calcPrice: CalcPrice | undefined;
  #rows: Readonly<Record<ProviderKind, ProviderKindRow>> = PROVIDER_KIND_ROWS;

  constructor(overrides: Record<string, ModelPrice>) {
    this.#overrides = overrides;
  }

  /** Prices remembered (bounded by PRICE_MEMO_ENTRIES). */
  get memoSize(): number {
    return this.#memo.size;
  }

  /**
   * Loads the price table (about 1 MB of data); call once at start-up. A kind whose vendor the
   * table does not know would price every answer at $0 without a word, so that stops start-up.
   */
  async load(rows: Readonly<Record<ProviderKind, ProviderKindRow>> = PROVIDER_KIND_ROWS): Promise<void> {
    const table = await import('@pydantic/genai-prices');
    for (const [kind, row] of Object.entries(rows) as [ProviderKind, ProviderKindRow][]) {
      if ('vendor' in row.pricing && table.findProvider({ providerId: row.pricing.vendor }) === undefined) {
        throw new Error(
          `provider kind '${kind}' is priced by vendor '${row.pricing.vendor}', which @pydantic/genai-prices does not know`,
        );
      }
    }
    this.#rows = rows;
    this.#calcPrice ??= table.calcPrice;
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

  #lookup(kind: ProviderKind, model: string): ResolvedPrice {
    // The model name is the caller's: only the table's own entries count, never Object's `constructor`.
    const override = Object.hasOwn(this.#overrides, model) ? this.#overrides[model] : undefined;
    if (override !== undefined) return { price: override, source: 'config' };
    // A kind that carries its own model prices has them among the overrides (the loader puts them there).
    const pricing = this.#rows[kind].pricing;
    if (!('vendor' in pricing) || this.#calcPrice === undefined) return NO_PRICE;
    const found = this.#calcPrice({ input_tokens: 0, output_tokens: 0 }, model, {
      providerId: pricing.vendor,
    });
    const prices = found?.model_price;
    if (prices === undefined) return NO_PRICE;
    const rate = (name: string): number | undefined => {
      const value = prices[name];
      // Tiered prices are priced at their base rate: the tiers start past 128k-200k tokens.
      if (typeof value === 'object' && value !== null && 'base' in value) return value.base;
      return typeof value === 'number' ? value : undefined;
    };
    const price: ModelPrice = {
      inputPerMTok: rate('input_mtok') ?? 0,
      outputPerMTok: rate('output_mtok') ?? 0,
    };
    const cacheRead = rate('cache_read_mtok');
    const cacheWrite = rate('cache_write_mtok');
    if (cacheRead !== undefined) price.cacheReadPerMTok = cacheRead;
    if (cacheWrite !== undefined) price.cacheWritePerMTok = cacheWrite;
    return { price, source: 'genai-prices' };
  }
}
