import {
  PROVIDER_SLOTS,
  type ProviderKind,
  type ProviderSlot,
  type RouteCandidate,
  type RoutingSettings,
} from '../../config/config-types.ts';
import type { SlotProfile } from './routing.ts';

/**
 * The compatible doors' `model` field, which is all an OpenAI or Anthropic client can say about
 * routing, read as the gateway's routing fields (contract 4.2, "Model addressing"):
 *
 * 1. `<slot>/<model>` (a slot name, '/', a model) pins that slot and model, like the native
 *    `provider` + `model`. Split at the first '/': the model may contain more.
 * 2. The name of a configured task route runs that route, like the native `task` (chat and JSON
 *    only: embeddings have no task routes, so there a task name is read as a model name).
 * 3. Any other name goes to the slot whose configured models include it: the first such slot in
 *    route order (see `slotsInRouteOrder`), pinned with that model.
 * 4. A vendor family's name (`claude-*` to an `anthropic` slot, `gpt-*` and `o<digit>*` to an
 *    `openai` one, `gemini-*` to a `gemini` one: contract 5.2, 5.9) goes to the first slot of that
 *    kind in route order, pinned with that model, when there is one.
 * 5. Else the default route, asked for that model (as a native `model` without `provider`).
 *
 * A prefix that is not a slot (`meta-llama/llama-3`, `provider-x/m`) is part of a plain name.
 */

/** Which door operation the name is for: JSON output is addressed as chat. */
export type AddressedOperation = 'chat' | 'embed';

/** The routing fields of ChatInput / EmbedInput that a `model` field decides. */
export interface ModelAddress {
  provider?: ProviderSlot;
  model?: string;
  task?: string;
}

export type ModelAddressing = { ok: true; address: ModelAddress } | { ok: false; message: string };

/** Longer names are refused: no real model name comes close, and the name is echoed in errors. */
export const MAX_MODEL_NAME_LENGTH = 256;

export function addressModel(
  name: string,
  operation: AddressedOperation,
  routing: RoutingSettings,
  slots: Record<ProviderSlot, SlotProfile>,
): ModelAddressing {
  if (name === '') return { ok: false, message: 'must name a model, a route or <slot>/<model>' };
  if (name.length > MAX_MODEL_NAME_LENGTH) {
    return { ok: false, message: `must be at most ${MAX_MODEL_NAME_LENGTH} characters` };
  }
  const slash = name.indexOf('/');
  if (slash > 0) {
    const prefix = name.slice(0, slash);
    if (isSlot(prefix)) {
      const model = name.slice(slash + 1);
      if (model === '') return { ok: false, message: `names slot ${prefix} but no model after the '/'` };
      return { ok: true, address: { provider: prefix, model } };
    }
  }
  // Own properties only: a model called `constructor` is not Object's.
  if (operation === 'chat' && Object.hasOwn(routing.tasks, name))
    return { ok: true, address: { task: name } };
  const owner = modelOwners(operation, routing, slots).get(name);
  if (owner !== undefined) return { ok: true, address: { provider: owner, model: name } };
  const family = familySlot(name, operation, routing, slots);
  if (family !== undefined) return { ok: true, address: { provider: family, model: name } };
  return { ok: true, address: { model: name } };
}

/** Per configuration (routing and slot profiles are built once per gateway): name to owner. */
const ownerIndexes = new WeakMap<
  RoutingSettings,
  WeakMap<object, Record<AddressedOperation, ReadonlyMap<string, ProviderSlot>>>
>();

/**
 * Each configured model name and the slot that serves it when a door names it alone: the first
 * slot in route order whose configured models include it. Computed once per configuration, so a
 * request's lookup is one map read.
 */
export function modelOwners(
  operation: AddressedOperation,
  routing: RoutingSettings,
  slots: Record<ProviderSlot, SlotProfile>,
): ReadonlyMap<string, ProviderSlot> {
  let bySlots = ownerIndexes.get(routing);
  if (bySlots === undefined) {
    bySlots = new WeakMap();
    ownerIndexes.set(routing, bySlots);
  }
  let index = bySlots.get(slots);
  if (index === undefined) {
    index = { chat: indexOwners('chat', routing, slots), embed: indexOwners('embed', routing, slots) };
    bySlots.set(slots, index);
  }
  return index[operation];
}

function indexOwners(
  operation: AddressedOperation,
  routing: RoutingSettings,
  slots: Record<ProviderSlot, SlotProfile>,
): Map<string, ProviderSlot> {
  const owners = new Map<string, ProviderSlot>();
  for (const slot of slotsInRouteOrder(operation, routing)) {
    for (const name of configuredModels(slot, operation, routing, slots)) {
      if (!owners.has(name)) owners.set(name, slot);
    }
  }
  return owners;
}

/**
 * The order in which slots are asked whether they own a model name: the operation's default
 * route (`routing.chat`, or `routing.embed`), then the other slots in slot order. So when two
 * slots list a model, the one the default route prefers serves it.
 */
export function slotsInRouteOrder(operation: AddressedOperation, routing: RoutingSettings): ProviderSlot[] {
  const route = operation === 'embed' ? routing.embed : routing.chat;
  return [...new Set([...route.map((candidate) => candidate.provider), ...PROVIDER_SLOTS])];
}

/**
 * The model names configured for a slot: for chat its chat model, its `models`, and the models
 * that the default chat route and the task routes ask of it; for embeddings (only on a slot that
 * can embed) its embedding model, its `models`, and those the embedding route asks of it.
 */
export function configuredModels(
  slot: ProviderSlot,
  operation: AddressedOperation,
  routing: RoutingSettings,
  slots: Record<ProviderSlot, SlotProfile>,
): Set<string> {
  const profile = slots[slot];
  const names = new Set<string>();
  const routes: RouteCandidate[][] =
    operation === 'embed' ? [routing.embed] : [routing.chat, ...Object.values(routing.tasks)];
  if (operation === 'embed') {
    if (!profile.canEmbed) return names;
    if (profile.embedModel !== undefined) names.add(profile.embedModel);
  } else {
    names.add(profile.chatModel);
  }
  for (const model of profile.models) names.add(model);
  for (const route of routes) {
    for (const candidate of route) {
      if (candidate.provider === slot && candidate.model !== undefined) names.add(candidate.model);
    }
  }
  return names;
}

/** The vendor kind whose model names look like this one, if any. */
function familyOf(name: string): ProviderKind | undefined {
  if (name.startsWith('claude-')) return 'anthropic';
  if (name.startsWith('gpt-') || /^o\d/.test(name)) return 'openai';
  if (name.startsWith('gemini-')) return 'gemini';
  return undefined;
}

/** The first slot in route order of the kind the name's family belongs to (that can embed, for embeddings). */
function familySlot(
  name: string,
  operation: AddressedOperation,
  routing: RoutingSettings,
  slots: Record<ProviderSlot, SlotProfile>,
): ProviderSlot | undefined {
  const kind = familyOf(name);
  if (kind === undefined) return undefined;
  return slotsInRouteOrder(operation, routing).find(
    (slot) => slots[slot].kind === kind && (operation !== 'embed' || slots[slot].canEmbed),
  );
}

function isSlot(name: string): name is ProviderSlot {
  return (PROVIDER_SLOTS as readonly string[]).includes(name);
}
