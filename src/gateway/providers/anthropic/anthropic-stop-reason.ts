import type { FinishReason } from '../provider.ts';

/**
 * Anthropic's `stop_reason` as the gateway's finish reason. `tool_use` is a normal stop when the
 * tool was the forced one carrying structured output (its `tool_choice` admits no other tool),
 * and `tool_calls` otherwise: the caller has calls to run. `model_context_window_exceeded` cut the answer short
 * like `max_tokens`; `pause_turn` (server tools) and unknown values are `other`.
 */
export function mapStopReason(reason: unknown, forcedTool: boolean): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return forcedTool ? 'stop' : 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'other';
  }
}

/** The `stop_sequence` that ended the answer: only with `stop_reason: stop_sequence`, else null. */
export function matchedStopSequence(reason: unknown, sequence: unknown): string | undefined {
  return reason === 'stop_sequence' && typeof sequence === 'string' ? sequence : undefined;
}
