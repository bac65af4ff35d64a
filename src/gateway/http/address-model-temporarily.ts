import { PROVIDER_SLOTS, type ProviderSlot } from '../../config/config-types.ts';
import type { ChatInput } from '../domain/use-case-inputs.ts';

/** `provider-b/<model>` pins a slot; any other name is a model name for the default route. */
export function addressModelTemporarily(model: string): Pick<ChatInput, 'provider' | 'model' | 'task'> {
  const slash = model.indexOf('/');
  if (slash > 0) {
    const slot = model.slice(0, slash);
    if ((PROVIDER_SLOTS as readonly string[]).includes(slot)) {
      const rest = model.slice(slash + 1);
      return rest === ''
        ? { provider: slot as ProviderSlot }
        : { provider: slot as ProviderSlot, model: rest };
    }
  }
  return { model };
}
