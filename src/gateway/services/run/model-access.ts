import { ApiError } from '../../../platform/errors.ts';
import { allowedCandidates, allowsNames, type ModelRequestNames } from '../../domain/model-allow-list.ts';
import type { PlannedCandidate, RouteRequest } from '../../domain/routing.ts';
import type { GovernanceSnapshot } from '../../governance/governance-snapshot.ts';
import type { GatewayDeps } from '../gateway-deps.ts';

/** The allow lists that bound an app: its own and its team's (undefined: none at all). */
export function modelListsOf(
  snapshot: GovernanceSnapshot | undefined,
  app: string,
): (readonly string[] | undefined)[] | undefined {
  const policy = snapshot?.app(app);
  if (policy === undefined) return undefined;
  const team = policy.team === undefined ? undefined : snapshot?.team(policy.team);
  if (policy.models === undefined && team?.models === undefined) return undefined;
  return [policy.models, team?.models];
}

/**
 * What a request names for the lists: the model it asked for, and its task when the task is
 * configured (`default` when it names neither model nor task). An unknown task runs the default
 * route, so it is not what a list is matched against: naming one cannot widen a list.
 */
export function requestNames(deps: Pick<GatewayDeps, 'config'>, request: RouteRequest): ModelRequestNames {
  const configured = request.task !== undefined && Object.hasOwn(deps.config.routing.tasks, request.task);
  const task = configured
    ? request.task
    : request.model === undefined && request.provider === undefined
      ? 'default'
      : undefined;
  return { requested: request.model, task };
}

/**
 * The planned candidates an app may use (CONTRACT 6.5, 6.9), or the 403 `model_not_allowed`
 * naming the model, before any upstream call. Each door renders the refusal in its own shape.
 */
export function allowedPlan(
  deps: Pick<GatewayDeps, 'config' | 'governance'>,
  app: string,
  request: RouteRequest,
  candidates: readonly PlannedCandidate[],
): readonly PlannedCandidate[] {
  const lists = modelListsOf(deps.governance?.snapshot, app);
  if (lists === undefined) return candidates;
  const names = requestNames(deps, request);
  const allowed = allowedCandidates(lists, names, candidates);
  if (allowed.length > 0) return allowed;
  const first = candidates[0];
  const named =
    request.model !== undefined
      ? request.provider === undefined
        ? request.model
        : `${request.provider}/${request.model}`
      : (names.task ?? (first === undefined ? 'the default model' : `${first.provider}/${first.model}`));
  const message = `model '${named}' is not allowed for app '${app}'`;
  throw new ApiError('model_not_allowed', message, { details: [{ path: '/model', message }] });
}

/**
 * Whether an app may use a model name as a door's `model` field or a batch line names it
 * (CONTRACT 6.5): the name, and the `slot/model` it resolves to, against the app's and its team's
 * lists. For callers outside a run (batches, model lists): `slotModel` is the resolved pin, if any.
 */
export function isModelAllowed(
  deps: Pick<GatewayDeps, 'config' | 'governance'>,
  app: string,
  names: ModelRequestNames,
  slotModel?: string,
): boolean {
  const lists = modelListsOf(deps.governance?.snapshot, app);
  if (lists === undefined) return true;
  return lists.every((list) => allowsNames(list, names, slotModel));
}

/**
 * Of a door's model list, what the app may use (CONTRACT 6.5: every door's `GET /v1/models`
 * shows only that): a route by its name, a model by its name or the `slot/model` that serves it.
 * The same array when the app has no list, so a door can keep its list built once.
 */
export function visibleModels<
  M extends { id: string; kind: 'route' | 'model' | 'pinned'; slot: string; model: string | undefined },
>(deps: Pick<GatewayDeps, 'config' | 'governance'>, app: string, listed: readonly M[]): readonly M[] {
  if (modelListsOf(deps.governance?.snapshot, app) === undefined) return listed;
  return listed.filter((entry) => {
    const slotModel = entry.model === undefined ? undefined : `${entry.slot}/${entry.model}`;
    const names = entry.kind === 'route' ? { task: entry.id } : { requested: entry.id };
    return isModelAllowed(deps, app, names, slotModel);
  });
}
