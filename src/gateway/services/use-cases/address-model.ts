import { ApiError } from '../../../platform/errors.ts';
import { type AddressedOperation, addressModel, type ModelAddress } from '../../domain/model-addressing.ts';
import { addressingConflicts, type ListedModel, listModels } from '../../domain/model-catalog.ts';
import type { GatewayDeps } from '../gateway-deps.ts';

/**
 * The routing fields (`provider`, `model`, `task`) for a compatible door's `model` field, to
 * spread onto its ChatInput, JsonInput or EmbedInput; see domain/model-addressing.ts for the
 * rules. A name that addresses nothing (empty, too long, a slot with no model) is a 400
 * `invalid_request` at `/model`, which each door answers in its own error shape.
 */
export function resolveModelField(
  deps: Pick<GatewayDeps, 'config' | 'registry'>,
  model: string,
  operation: AddressedOperation = 'chat',
): ModelAddress {
  const addressing = addressModel(model, operation, deps.config.routing, deps.registry.profiles);
  if (addressing.ok) return addressing.address;
  const message = addressing.message;
  throw new ApiError('invalid_request', `model ${message}`, { details: [{ path: '/model', message }] });
}

/** What a door's `model` field resolves on this gateway, for `GET /v1/models` (see listModels). */
export function listAddressableModels(deps: Pick<GatewayDeps, 'config' | 'registry'>): ListedModel[] {
  return listModels(deps.config.routing, deps.registry.profiles);
}

/** Task routes the compatible doors cannot reach, or that hide a model: logged at start-up. */
export function modelAddressingWarnings(deps: Pick<GatewayDeps, 'config' | 'registry'>): string[] {
  return addressingConflicts(deps.config.routing, deps.registry.profiles);
}
