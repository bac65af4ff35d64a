import { PROVIDER_SLOTS, type ProviderSlot } from '../../../config/config-types.ts';
import { MAX_TOOL_CALLS_PER_MESSAGE } from '../../domain/tool-limits.ts';

export const SIMULATED_FAULTS = [
  'server_error',
  'overloaded',
  'rate_limited',
  'quota_exceeded',
  'bad_request',
  'unauthorized',
  'timeout',
  'connection',
  'invalid_json',
  'stream_cut',
  'context_overflow',
] as const;
export type SimulatedFault = (typeof SIMULATED_FAULTS)[number];

/**
 * What a request may ask of the simulated provider through `metadata.simulated`:
 * `{ fault, faultAttempts, slots, latencyMs, chunkDelayMs, reply, toolCall }`. Anything
 * unrecognised is ignored.
 */
export interface SimulatedDirectives {
  fault?: SimulatedFault;
  /** How many calls to a slot fail before it answers (default: all of them). */
  faultAttempts?: number;
  /** Only these slots misbehave (default: every simulated slot). */
  slots?: ProviderSlot[];
  latencyMs?: number;
  chunkDelayMs?: number;
  /** The reply text to give instead of the generated one (chat only). */
  reply?: string;
  /**
   * Call this tool (a name), these tools in parallel (names), or one the seed picks (`true`),
   * when the request offers them; not right after a tool result (see simulated-tool-calls.ts).
   */
  toolCall?: string | string[] | true;
}

const MAX_DELAY_MS = 60_000;

export function readDirectives(metadata: Readonly<Record<string, unknown>> | undefined): SimulatedDirectives {
  const raw = metadata?.simulated;
  if (typeof raw !== 'object' || raw === null) return {};
  const input = raw as Record<string, unknown>;
  const directives: SimulatedDirectives = {};
  if (typeof input.fault === 'string' && (SIMULATED_FAULTS as readonly string[]).includes(input.fault)) {
    directives.fault = input.fault as SimulatedFault;
  }
  if (isCount(input.faultAttempts)) directives.faultAttempts = input.faultAttempts;
  if (Array.isArray(input.slots)) {
    directives.slots = input.slots.filter((s): s is ProviderSlot =>
      (PROVIDER_SLOTS as readonly unknown[]).includes(s),
    );
  }
  if (isCount(input.latencyMs)) directives.latencyMs = Math.min(input.latencyMs, MAX_DELAY_MS);
  if (isCount(input.chunkDelayMs)) directives.chunkDelayMs = Math.min(input.chunkDelayMs, MAX_DELAY_MS);
  if (typeof input.reply === 'string') directives.reply = input.reply;
  const toolCall = input.toolCall;
  if (toolCall === true || typeof toolCall === 'string') directives.toolCall = toolCall;
  else if (Array.isArray(toolCall)) {
    directives.toolCall = toolCall
      .slice(0, MAX_TOOL_CALLS_PER_MESSAGE)
      .filter((name): name is string => typeof name === 'string');
  }
  return directives;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
