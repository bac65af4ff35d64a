import { ApiError } from '../../../platform/errors.ts';
import { type PlannedCandidate, planRoute, type RouteRequest } from '../../domain/routing.ts';
import type { GatewayDeps } from '../gateway-deps.ts';

/**
 * Plans of requests that name neither a provider nor a model depend only on the operation and
 * the configured task route, so they are made once per gateway (its registry, built with its
 * configuration) and shared, frozen: no caller changes its candidates. Only configured tasks
 * are kept, so callers cannot grow this with made-up task names.
 */
const sharedPlans = new WeakMap<object, Map<string, PlannedCandidate[]>>();

/** The candidates for a request, or the 400 that explains why no slot can serve it. */
export function planOrFail(deps: GatewayDeps, request: RouteRequest): PlannedCandidate[] {
  const shareable =
    request.provider === undefined &&
    request.model === undefined &&
    (request.task === undefined || Object.hasOwn(deps.config.routing.tasks, request.task));
  if (!shareable) return plan(deps, request);
  let plans = sharedPlans.get(deps.registry.profiles);
  if (plans === undefined) {
    plans = new Map();
    sharedPlans.set(deps.registry.profiles, plans);
  }
  const key = `${request.operation}\u0000${request.task ?? ''}\u0000${request.tools === true ? 'tools' : ''}`;
  let candidates = plans.get(key);
  if (candidates === undefined) {
    candidates = Object.freeze(plan(deps, request)) as PlannedCandidate[];
    plans.set(key, candidates);
  }
  return candidates;
}

function plan(deps: GatewayDeps, request: RouteRequest): PlannedCandidate[] {
  const plan = planRoute(request, deps.config.routing, deps.registry.profiles);
  if (plan.ok) return plan.candidates;
  const what =
    request.operation === 'embed'
      ? 'embeddings'
      : request.tools === true
        ? 'tool calling'
        : request.operation;
  const message =
    plan.provider === undefined
      ? `no configured provider can serve ${what}`
      : `${plan.provider} (${deps.registry.settings(plan.provider).kind}) does not support ${what}`;
  const pointer = plan.provider === undefined ? '' : '/provider';
  throw new ApiError('unsupported_capability', message, { details: [{ path: pointer, message }] });
}
