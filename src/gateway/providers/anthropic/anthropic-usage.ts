import { asCount, isRecord } from '../json-guards.ts';
import type { ChatStreamEvent, ReportedUsage } from '../provider.ts';

/** The counts of an Anthropic `usage` object that the gateway keeps; absent ones are undefined. */
export interface AnthropicUsageCounts {
  input?: number;
  cacheRead?: number;
  /** `cache_creation_input_tokens`: every cache write, 5-minute and 1-hour. */
  cacheWrite?: number;
  /** `cache_creation.ephemeral_5m_input_tokens` and `ephemeral_1h_input_tokens`. */
  cacheWrite5m?: number;
  cacheWrite1h?: number;
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
  const creation = usage['cache_creation'];
  if (isRecord(creation)) {
    set('cacheWrite5m', creation['ephemeral_5m_input_tokens']);
    set('cacheWrite1h', creation['ephemeral_1h_input_tokens']);
  }
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
  const usage = withCacheCounts(counts, counts.input, counts.output);
  if (counts.thinking !== undefined) usage.reasoningTokens = counts.thinking;
  return usage;
}

/**
 * The prompt's side of the counts that `message_start` carries (input and cache; output 0): a
 * stream's first event knows them, so that a door can report them before the answer's end.
 * Undefined without `input_tokens`.
 */
export function toPromptUsage(counts: AnthropicUsageCounts): ReportedUsage | undefined {
  return counts.input === undefined ? undefined : withCacheCounts(counts, counts.input, 0);
}

/** The stream's `model` event, with the prompt's counts where message_start had them. */
export function withPromptUsage(model: string, counts: AnthropicUsageCounts): ChatStreamEvent {
  const promptUsage = toPromptUsage(counts);
  return promptUsage === undefined ? { type: 'model', model } : { type: 'model', model, promptUsage };
}

/**
 * Input with the cache's parts added. The writes are `cache_creation_input_tokens` (or, without
 * it, the sum of the `cache_creation` split), of which the 1-hour ones are
 * `ephemeral_1h_input_tokens`: the rest are 5-minute writes, as all writes are for a server that
 * sends no split.
 */
function withCacheCounts(counts: AnthropicUsageCounts, input: number, output: number): ReportedUsage {
  const split = counts.cacheWrite5m !== undefined || counts.cacheWrite1h !== undefined;
  const written =
    counts.cacheWrite ?? (split ? (counts.cacheWrite5m ?? 0) + (counts.cacheWrite1h ?? 0) : undefined);
  const usage: ReportedUsage = {
    inputTokens: input + (counts.cacheRead ?? 0) + (written ?? 0),
    outputTokens: output,
  };
  if (counts.cacheRead !== undefined) usage.cacheReadTokens = counts.cacheRead;
  if (written !== undefined) usage.cacheWriteTokens = written;
  // Absent means none, as for most answers: only Anthropic's 1-hour writes set it.
  if (written !== undefined && counts.cacheWrite1h !== undefined && counts.cacheWrite1h > 0)
    usage.cacheWrite1hTokens = Math.min(counts.cacheWrite1h, written);
  return usage;
}
