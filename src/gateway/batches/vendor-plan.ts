import type { Config, ProviderSlot } from '../../config/config-types.ts';
import type { BatchFlavor } from '../../storage/batch-store.ts';
import { addressModel } from '../domain/model-addressing.ts';
import type { Guardrails } from '../guardrails/guardrails.ts';
import type { ProviderRegistry } from '../providers/registry.ts';

/**
 * Where a batch runs (CONTRACT 6.7; docs/batches.md "Where requests run"): on a vendor's batch
 * API at its batch price, or by the gateway itself. A vendor runs it only when the gateway would
 * send every request to that one upstream unchanged:
 *
 * - `batches.vendorBatches` is on;
 * - every request's `model` pins one slot (`<slot>/<model>`, a slot's configured model, or a
 *   vendor family's name; never a task or the default route, whose fallback and balancing a
 *   vendor's batch cannot do);
 * - the slot's kind speaks the batch's own wire format: an OpenAI batch on an `openai` slot, a
 *   Message Batch on an `anthropic` slot (a cross-vendor batch would need every body translated,
 *   and every result back);
 * - the slot is one upstream (no deployments: one key, one account that holds the batch);
 * - no input or output guard applies to the app (CONTRACT 6.6): a vendor's batch would pass the
 *   requests and answers by them.
 *
 * Anything else (a simulated slot, Gemini, Bedrock, Azure and Vertex kinds, a batch mixing slots
 * or models of routes) the gateway runs itself, at the live price.
 */
export interface VendorRoute {
  /** The slot whose batch API takes the batch, or null: the gateway runs it. */
  slotFor(
    app: string,
    flavor: BatchFlavor,
    endpoint: string,
    models: ReadonlySet<string | undefined>,
  ): ProviderSlot | null;
  /** The upstream's own name for a request's model (the `<slot>/` taken off). */
  upstreamModel(endpoint: string, model: string): string;
}

const KIND_OF_FLAVOR: Record<BatchFlavor, string> = { openai: 'openai', anthropic: 'anthropic' };

export function vendorRoute(deps: {
  config: Pick<Config, 'routing' | 'batches'>;
  registry: ProviderRegistry;
  guardrails: Pick<Guardrails, 'guardsFor'>;
  teamOf: (app: string) => string | undefined;
}): VendorRoute {
  const pinned = (endpoint: string, model: string) => {
    const operation = endpoint === '/v1/embeddings' ? 'embed' : 'chat';
    const addressing = addressModel(model, operation, deps.config.routing, deps.registry.profiles);
    if (!addressing.ok || addressing.address.task !== undefined) return undefined;
    const { provider, model: upstream } = addressing.address;
    return provider === undefined || upstream === undefined ? undefined : { slot: provider, model: upstream };
  };
  return {
    slotFor(app, flavor, endpoint, models) {
      if (!deps.config.batches.vendorBatches || models.size === 0) return null;
      const guards = deps.guardrails.guardsFor({ app, team: deps.teamOf(app), task: undefined });
      if (guards !== undefined && guards.input.length + guards.output.length > 0) return null;
      let slot: ProviderSlot | undefined;
      for (const model of models) {
        const found = model === undefined ? undefined : pinned(endpoint, model);
        if (found === undefined || (slot !== undefined && found.slot !== slot)) return null;
        slot = found.slot;
      }
      if (slot === undefined) return null;
      const settings = deps.registry.settings(slot);
      if (settings.kind !== KIND_OF_FLAVOR[flavor]) return null;
      if (deps.registry.pool(slot).deployments.length !== 1) return null;
      return slot;
    },
    upstreamModel(endpoint, model) {
      return pinned(endpoint, model)?.model ?? model;
    },
  };
}
