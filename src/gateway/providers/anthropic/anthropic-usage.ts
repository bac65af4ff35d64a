import { asCount, isRecord } from '../json-guards.ts';
import type { ReportedUsage } from '../provider.ts';

/** The counts of an Anthropic `usage` object that the gateway keeps; absent ones are undefined. */
export interface AnthropicUsageCounts {
  input?: number;
  cacheRead?: number;
  cacheWrite?: number;
  output?: number;
  thinking?: number;
}

/** Reads `usage` (of a Message, of message_start or of message_delta) without trusting its shape. */
export function readUsageCounts(usage: unknown): AnthropicUsageCounts {
  if (!isRecord(usage)) return {};
  const counts: AnthropicUsageCounts = {};
  const set = (key: keyof AnthropicUsageCounts, value: unknown) => {
    const count = asCount(value);
    if (count !== undefined) counts[key] = count;
  };
  set('input', usage['input_tokens']);
  set('cacheRead', usage['cache_read_input_tokens']);
  set('cacheWrite', usage['cache_creation_input_tokens']);
  set('output', usage['output_tokens']);
  if (isRecord(usage['output_tokens_details']))
    set('thinking', usage['output_tokens_details']['thinking_tokens']);
  return counts;
}

/** message_delta's counts are cumulative: they replace message_start's where present. */
export function mergeUsageCounts(
  earlier: AnthropicUsageCounts,
  later: AnthropicUsageCounts,
): AnthropicUsageCounts {
  return { ...earlier, ...later };
}

/**
 * The gateway's usage from Anthropic's counts. Anthropic's `input_tokens` excludes cached input:
 * the total input is input + cache reads + cache writes, and the gateway's `inputTokens` is that
 * total. `output_tokens` already includes thinking tokens. Undefined when input or output is
 * missing, so the gateway estimates instead of trusting half a report.
 */
export function toReportedUsage(counts: AnthropicUsageCounts): ReportedUsage | undefined {
  if (counts.input === undefined || counts.output === undefined) return undefined;
  const usage: ReportedUsage = {
    inputTokens: counts.input + (counts.cacheRead ?? 0) + (counts.cacheWrite ?? 0),
    outputTokens: counts.output,
  };
  if (counts.cacheRead !== undefined) usage.cacheReadTokens = counts.cacheRead;
  if (counts.cacheWrite !== undefined) usage.cacheWriteTokens = counts.cacheWrite;
  if (counts.thinking !== undefined) usage.reasoningTokens = counts.thinking;
  return usage;
}
