import { PROVIDER_SLOTS, type ProviderSlot, type RoutingSettings } from '../../config/config-types.ts';
import { type AddressedOperation, addressModel, configuredModels, modelOwners } from './model-addressing.ts';
import type { SlotProfile } from './routing.ts';

/** One name a door's `model` field resolves, as `GET /v1/models` lists it (each id once). */
export interface ListedModel {
  /** What a client puts in `model`. */
  id: string;
  /**
   * `route`: a task route (chat and JSON only); `model`: a plain model name, served by the slot
   * that owns it; `pinned`: `<slot>/<model>`, served by that slot whatever the routes say.
   */
  kind: 'route' | 'model' | 'pinned';
  /** The slot that serves it (for chat when it serves chat); for a route, its first candidate. */
  slot: ProviderSlot;
  /** The upstream model asked for; undefined for a route whose first candidate uses its slot's default. */
  model: string | undefined;
  /**
   * Which slot serves it for each operation it resolves for: a chat model is no embedding model,
   * routes are chat only, and when two slots list a name, chat and embeddings may each take
   * their own default route's first.
   */
  servedBy: Partial<Record<AddressedOperation, ProviderSlot>>;
}

const OPERATIONS = ['chat', 'embed'] as const;

/**
 * Everything a door's `model` field resolves, each id once, in this order: the task routes (in
 * configuration order), each configured model as a plain name (with the slot that owns it), and
 * each slot's configured models as `<slot>/<model>`. A plain name is listed only for the
 * operations where it resolves to that model (a model named like a task is reached through the
 * task for chat); a route name is not listed again as a plain name.
 */
export function listModels(
  routing: RoutingSettings,
  slots: Record<ProviderSlot, SlotProfile>,
): ListedModel[] {
  const listed = new Map<string, ListedModel>();
  for (const [task, candidates] of Object.entries(routing.tasks)) {
    const first = candidates[0];
    // A task named like `<slot>/<model>` is reached as that pin, never as the route.
    const address = addressModel(task, 'chat', routing, slots);
    if (first === undefined || !address.ok || address.address.task !== task) continue;
    listed.set(task, {
      id: task,
      kind: 'route',
      slot: first.provider,
      model: first.model,
      servedBy: { chat: first.provider },
    });
  }

  for (const operation of OPERATIONS) {
    for (const [name, slot] of modelOwners(operation, routing, slots)) {
      const address = addressModel(name, operation, routing, slots);
      if (!address.ok || address.address.provider !== slot || address.address.model !== name) continue;
      const known = listed.get(name);
      if (known === undefined) {
        listed.set(name, { id: name, kind: 'model', slot, model: name, servedBy: { [operation]: slot } });
      } else if (known.kind === 'model') {
        known.servedBy[operation] = slot;
      }
    }
  }

  for (const slot of PROVIDER_SLOTS) {
    for (const operation of OPERATIONS) {
      for (const model of configuredModels(slot, operation, routing, slots)) {
        const id = `${slot}/${model}`;
        const known = listed.get(id);
        if (known === undefined)
          listed.set(id, { id, kind: 'pinned', slot, model, servedBy: { [operation]: slot } });
        else known.servedBy[operation] = slot;
      }
    }
  }
  return [...listed.values()];
}

/**
 * Task routes the compatible doors cannot reach as configured, or that hide a model, each as a
 * sentence for the start-up log: a task named `<slot>/…` (the doors read it as a pin), and a task
 * named like a model some slot is configured with (the doors run the task; the model stays
 * reachable as `<slot>/<model>`). Neither is an error: the native `task` field still works.
 */
export function addressingConflicts(
  routing: RoutingSettings,
  slots: Record<ProviderSlot, SlotProfile>,
): string[] {
  const conflicts: string[] = [];
  for (const task of Object.keys(routing.tasks)) {
    const address = addressModel(task, 'chat', routing, slots);
    if (address.ok && address.address.task === undefined) {
      conflicts.push(
        `task route "${task}" cannot be named in the compatible doors' model field: it reads as <slot>/<model>`,
      );
      continue;
    }
    for (const operation of OPERATIONS) {
      const owner = modelOwners(operation, routing, slots).get(task);
      if (owner === undefined) continue;
      conflicts.push(
        `task route "${task}" shadows the model "${task}" of ${owner} in the compatible doors' model field; name that model "${owner}/${task}" there`,
      );
      break;
    }
  }
  return conflicts;
}
