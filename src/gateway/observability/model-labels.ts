import {
  type Config,
  PROVIDER_SLOTS,
  type ProviderSlot,
  type RoutingSettings,
} from '../../config/config-types.ts';
import { configuredModels } from '../domain/model-addressing.ts';
import type { SlotProfile } from '../domain/routing.ts';
import type { PriceBook } from '../pricing/price-book.ts';

/** The label value of every model name that is neither configured nor priced (contract 5.8). */
export const OTHER_MODEL = 'other';

/**
 * Priced names past the configured ones that become label values, first come first kept. The
 * price data matches by rules (`starts_with: gpt-4`), so it knows endless names: this keeps them
 * to a fixed number however many a client invents.
 */
export const MAX_PRICED_MODEL_LABELS = 100;

/** Every model name the configuration knows: each slot's models for chat and embeddings, the routes' and the priced ones. */
export function configuredModelNames(
  routing: RoutingSettings,
  slots: Record<ProviderSlot, SlotProfile>,
  prices: Readonly<Record<string, unknown>>,
): Set<string> {
  const names = new Set<string>(Object.keys(prices));
  for (const slot of PROVIDER_SLOTS) {
    for (const operation of ['chat', 'embed'] as const)
      for (const name of configuredModels(slot, operation, routing, slots)) names.add(name);
  }
  return names;
}

/**
 * The model label of a metric: a client may send any `model` (and a simulated slot answers
 * `simulated-<that>`), so only names the configuration or the price data knows become label
 * values; any other is `other`. Otherwise each invented name would make series of its own in every
 * family, and `/metrics` and the process would grow without bound.
 */
export class ModelLabels {
  readonly #known: ReadonlySet<string>;
  readonly #isPriced: (slot: string, model: string) => boolean;
  readonly #priced = new Set<string>();
  /** Names found unpriced, so a repeated one costs no price lookup; bounded like the priced ones. */
  readonly #unpriced = new Set<string>();
  readonly #maxPriced: number;

  constructor(
    known: Iterable<string>,
    isPriced: (slot: string, model: string) => boolean,
    maxPriced = MAX_PRICED_MODEL_LABELS,
  ) {
    const names = new Set<string>();
    for (const name of known) {
      names.add(name);
      // What a simulated slot reports for a configured name.
      names.add(name.startsWith('simulated') ? name : `simulated-${name}`);
    }
    this.#known = names;
    this.#isPriced = isPriced;
    this.#maxPriced = maxPriced;
  }

  /** The label value for a model that `slot` was asked for or answered with ('' stays ''). */
  of(slot: string, model: string): string {
    if (model === '' || this.#known.has(model) || this.#priced.has(model)) return model;
    if (this.#priced.size >= this.#maxPriced || this.#unpriced.has(model)) return OTHER_MODEL;
    if (this.#isPriced(slot, model)) {
      this.#priced.add(model);
      return model;
    }
    if (this.#unpriced.size >= 1_000) this.#unpriced.clear();
    this.#unpriced.add(model);
    return OTHER_MODEL;
  }
}

/** The model label function of a gateway: its configuration's names, then the price data's. */
export function modelLabelsFor(
  config: Config,
  profiles: Record<ProviderSlot, SlotProfile>,
  prices: PriceBook,
): (slot: string, model: string) => string {
  const labels = new ModelLabels(
    configuredModelNames(config.routing, profiles, config.prices),
    (slot, model) => {
      const settings = Object.hasOwn(config.providers, slot)
        ? config.providers[slot as ProviderSlot]
        : undefined;
      return settings !== undefined && prices.resolve(settings.kind, model).source !== 'none';
    },
  );
  return (slot, model) => labels.of(slot, model);
}
