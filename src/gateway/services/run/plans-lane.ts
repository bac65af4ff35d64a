import type { PlannedCandidate } from '../../domain/routing.ts';
import type { GatewayDeps } from '../gateway-deps.ts';
import { type MessagesInput, relayOf } from '../use-cases/run-messages.ts';

/**
 * Whether any planned candidate takes a same-vendor lane of these kinds and wire format (its
 * adapter relays that format for its model): a door asks before choosing how to serve a request
 * (the Gemini door's structured output, served by the lane only where Google enforces it).
 */
export function plansLane(
  deps: GatewayDeps,
  candidates: readonly PlannedCandidate[],
  lane: Pick<MessagesInput, 'laneKinds' | 'laneWire'>,
): boolean {
  return candidates.some(
    (candidate) => relayOf(deps.registry.adapter(candidate.provider), lane, candidate.model) !== undefined,
  );
}
