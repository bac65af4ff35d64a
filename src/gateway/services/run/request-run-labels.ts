import type { RoutingSettings } from '../../../config/config-types.ts';
import type { PlannedCandidate, RouteRequest } from '../../domain/routing.ts';
import type { GatewayDeps } from '../gateway-deps.ts';

/**
 * What `/metrics` says of how a request was addressed (CONTRACT 4.3, 6.1, 6.9): `route` is the
 * configured task it ran, `default` (no task, or an embedding that pins no slot), `slot` when it pinned a slot
 * (a `provider`, a `provider-b/…` model, a name a slot's model list or vendor family places), or
 * `other` for a task the configuration does not know, so that a client's invented names make no
 * series; `requestedModel` is the model the client asked for (else the one its route chose), which
 * the metrics turn into a label only when the configuration or the price data knows it.
 */
export interface RunLabels {
  route: string;
  requestedModel: string;
  /** The slot the request was planned to first, whose vendor's price data may know the model. */
  requestedSlot: string;
}

/** A run that was never planned (an MCP tool call) or refused before it was. */
export const UNROUTED: RunLabels = Object.freeze({ route: '', requestedModel: '', requestedSlot: '' });

export function labelRun(
  request: RouteRequest | undefined,
  deps: Pick<GatewayDeps, 'config'>,
  candidates: readonly PlannedCandidate[],
): RunLabels {
  if (request === undefined) return UNROUTED;
  const first = candidates[0];
  return {
    route: routeOf(request, deps.config.routing),
    requestedModel: request.model ?? first?.model ?? '',
    requestedSlot: request.provider ?? first?.provider ?? '',
  };
}

function routeOf(request: RouteRequest, routing: RoutingSettings): string {
  if (request.provider !== undefined) return 'slot';
  if (request.task === undefined || request.operation === 'embed') return 'default';
  return Object.hasOwn(routing.tasks, request.task) ? request.task : 'other';
}
