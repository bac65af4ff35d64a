import { ApiError } from '../../platform/errors.ts';
import { type PlannedCandidate, planRoute, type RouteRequest } from '../domain/routing.ts';
import type { GatewayDeps } from './gateway-deps.ts';

/** The candidates for a request, or the 400 that explains why no slot can serve it. */
export function planOrFail(deps: GatewayDeps, request: RouteRequest): PlannedCandidate[] {
  const plan = planRoute(request, deps.config.routing, deps.registry.profiles);
  if (plan.ok) return plan.candidates;
  const what = request.operation === 'embed' ? 'embeddings' : request.operation;
  const message =
    plan.provider === undefined
      ? `no configured provider can serve ${what}`
      : `${plan.provider} (${deps.registry.settings(plan.provider).kind}) does not support ${what}`;
  const pointer = plan.provider === undefined ? '' : '/provider';
  throw new ApiError('unsupported_capability', message, { details: [{ path: pointer, message }] });
}
