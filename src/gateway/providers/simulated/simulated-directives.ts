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

/** One call the `toolCall` directive asks for: a tool's name, and the arguments to call it with. */
export interface NamedCall {
  name: string;
  /** The arguments as JSON text (an object given by the request); else sampled from the schema. */
  arguments?: string;
}

/**
 * What a request may ask of the simulated provider through `metadata.simulated`, or through a
 * `<simulated>{…}</simulated>` block in its last user message (simulated-prompt-directives.ts):
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
   * Call this tool (a name, or `{name, arguments}`), these tools in parallel (a list of either),
   * or one the seed picks (`true`), when the request offers them; not right after a tool result
   * (see simulated-tool-calls.ts).
   */
  toolCall?: string | readonly (string | NamedCall)[] | true;
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
  else if (Array.isArray(toolCall) || isObject(toolCall)) {
    directives.toolCall = (Array.isArray(toolCall) ? toolCall : [toolCall])
      .slice(0, MAX_TOOL_CALLS_PER_MESSAGE)
      .map(readCall)
      .filter((call): call is string | NamedCall => call !== undefined);
  }
  return directives;
}

/** A name, or `{name, arguments}` whose arguments (when given) are a JSON object; else nothing. */
function readCall(value: unknown): string | NamedCall | undefined {
  if (typeof value === 'string') return value;
  if (!isObject(value) || typeof value.name !== 'string') return undefined;
  if (value.arguments === undefined) return { name: value.name };
  return isObject(value.arguments)
    ? { name: value.name, arguments: JSON.stringify(value.arguments) }
    : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
