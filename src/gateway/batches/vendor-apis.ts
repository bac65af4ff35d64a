import type { ProviderKind, ProviderSlot } from '../../config/config-types.ts';
import { ANTHROPIC_ORIGIN } from '../providers/anthropic/anthropic-provider.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import { anthropicVendorApi } from './anthropic-vendor-api.ts';
import { openAIVendorApi } from './openai-vendor-api.ts';
import type { VendorBatchApi } from './vendor-api.ts';

/** A slot's batch API, built from its base URL and key (only `openai` and `anthropic` slots get batches: vendor-plan.ts). */
export function vendorApis(
  registry: Pick<ProviderRegistry, 'settings'>,
): (slot: string) => { kind: ProviderKind; api: VendorBatchApi } {
  const built = new Map<string, { kind: ProviderKind; api: VendorBatchApi }>();
  return (slot) => {
    let found = built.get(slot);
    if (found === undefined) {
      const settings = registry.settings(slot as ProviderSlot);
      const api =
        settings.kind === 'anthropic'
          ? anthropicVendorApi(settings.baseUrl ?? ANTHROPIC_ORIGIN, settings.apiKey)
          : openAIVendorApi(String(settings.baseUrl), settings.apiKey);
      found = { kind: settings.kind, api };
      built.set(slot, found);
    }
    return found;
  };
}
