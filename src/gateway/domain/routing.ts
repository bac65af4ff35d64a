import type {
  ProviderKind,
  ProviderSlot,
  RouteCandidate,
  RoutingSettings,
} from '../../config/config-types.ts';

export type RoutedOperation = 'chat' | 'embed' | 'json';

export interface RouteRequest {
  operation: RoutedOperation;
  provider?: ProviderSlot | undefined;
  model?: string | undefined;
  task?: string | undefined;
  /** The request offers tools: only slots that can call them may serve it. */
  tools?: boolean | undefined;
}

/** What routing needs to know of each slot. */
export interface SlotProfile {
  /** The slot's upstream kind; it places vendor-family model names (model-addressing.ts). */
  kind?: ProviderKind;
  chatModel: string;
  embedModel: string | undefined;
  models: readonly string[];
  canEmbed: boolean;
  canCallTools: boolean;
}

export interface PlannedCandidate {
  provider: ProviderSlot;
  model: string;
}

export type RoutePlan =
  | { ok: true; route: string; candidates: PlannedCandidate[]; explicit: boolean }
  | { ok: false; reason: 'unsupported_capability'; provider: ProviderSlot | undefined };

/**
 * Decides which (slot, model) pairs may serve a request, in order of preference.
 * - An explicit `provider` is the only candidate; it is never swapped for another slot.
 * - Otherwise `task` picks a configured route; no task, or an unknown one, uses the default route.
 * - A `model` without a provider keeps the candidates that serve that model (their default or
 *   their declared `models`); when none does, the route's first slot is asked for it.
 * - Embeddings skip slots that cannot embed; requests with tools, slots that cannot call tools.
 */
export function planRoute(
  request: RouteRequest,
  routing: RoutingSettings,
  slots: Record<ProviderSlot, SlotProfile>,
): RoutePlan {
  const embed = request.operation === 'embed';
  const defaultModel = (slot: ProviderSlot): string | undefined =>
    embed ? slots[slot].embedModel : slots[slot].chatModel;

  if (request.provider !== undefined) {
    const profile = slots[request.provider];
    const model = request.model ?? defaultModel(request.provider);
    if (
      (embed && !profile.canEmbed) ||
      (request.tools === true && !profile.canCallTools) ||
      model === undefined
    ) {
      return { ok: false, reason: 'unsupported_capability', provider: request.provider };
    }
    return {
      ok: true,
      route: 'explicit',
      candidates: [{ provider: request.provider, model }],
      explicit: true,
    };
  }

  // Own properties only: a task named `constructor` or `__proto__` is an unknown task, not Object's.
  const taskRoute =
    request.task !== undefined && !embed && Object.hasOwn(routing.tasks, request.task)
      ? routing.tasks[request.task]
      : undefined;
  const route = taskRoute !== undefined ? `task:${request.task}` : embed ? 'default-embed' : 'default';
  const listed: RouteCandidate[] = taskRoute ?? (embed ? routing.embed : routing.chat);
  const usable = listed.filter(
    (c) =>
      (!embed || slots[c.provider].canEmbed) && (request.tools !== true || slots[c.provider].canCallTools),
  );

  const resolved: PlannedCandidate[] = [];
  for (const candidate of usable) {
    const model = candidate.model ?? defaultModel(candidate.provider);
    if (model !== undefined) resolved.push({ provider: candidate.provider, model });
  }
  if (resolved.length === 0) return { ok: false, reason: 'unsupported_capability', provider: undefined };
  if (request.model === undefined) return { ok: true, route, candidates: dedupe(resolved), explicit: false };

  const wanted = request.model;
  const serving = resolved
    .filter((c) => c.model === wanted || slots[c.provider].models.includes(wanted))
    .map((c) => ({ provider: c.provider, model: wanted }));
  const candidates =
    serving.length > 0 ? serving : [{ provider: (resolved[0] as PlannedCandidate).provider, model: wanted }];
  return { ok: true, route, candidates: dedupe(candidates), explicit: false };
}

function dedupe(candidates: PlannedCandidate[]): PlannedCandidate[] {
  const seen = new Set<string>();
  return candidates.filter((c) => {
    const key = `${c.provider}\u0000${c.model}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
