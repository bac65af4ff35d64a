import type { IncomingHttpHeaders } from 'node:http';

/**
 * The parts of a Messages request that a proxy can lose, counted, so that what Claude Code sent
 * and what an upstream received compare row by row (the "before" and "after" tables of
 * docs/clients/README.md).
 */
export interface AnthropicRequestSummary {
  model: unknown;
  anthropicVersion: string | undefined;
  anthropicBeta: string[];
  /** `blocks(n)`, `string` or `absent`. */
  system: string;
  /** `cache_control` markers anywhere in the body (system, tools, messages, top level). */
  cacheControlMarkers: number;
  thinking: unknown;
  outputConfig: unknown;
  metadata: unknown;
  contextManagement: unknown;
  tools: number;
  /** Messages by role, in order, such as `user,system,assistant,user`. */
  roles: string;
  /** Content blocks by type, anywhere in the messages (tool_result contents included). */
  blocks: Record<string, number>;
  /** Thinking and redacted_thinking blocks' signatures, in order. */
  signatures: string[];
  maxTokens: unknown;
  stream: unknown;
}

export function summarizeAnthropicRequest(
  headers: IncomingHttpHeaders,
  body: Record<string, any>,
): AnthropicRequestSummary {
  const blocks: Record<string, number> = {};
  const signatures: string[] = [];
  const countBlocks = (content: unknown): void => {
    if (!Array.isArray(content)) return;
    for (const block of content) {
      if (typeof block !== 'object' || block === null) continue;
      const type = String(block.type);
      blocks[type] = (blocks[type] ?? 0) + 1;
      if (typeof block.signature === 'string') signatures.push(block.signature);
      if (type === 'tool_result') countBlocks(block.content);
    }
  };
  const messages: any[] = Array.isArray(body['messages']) ? body['messages'] : [];
  for (const message of messages) countBlocks(message?.content);
  const system = body['system'];
  const beta = headers['anthropic-beta'];
  return {
    model: body['model'],
    anthropicVersion: headers['anthropic-version'] as string | undefined,
    anthropicBeta: typeof beta === 'string' && beta !== '' ? beta.split(',') : [],
    system: Array.isArray(system)
      ? `blocks(${system.length})`
      : typeof system === 'string'
        ? 'string'
        : 'absent',
    cacheControlMarkers: countKey(body, 'cache_control'),
    thinking: body['thinking'],
    outputConfig: body['output_config'],
    metadata: body['metadata'],
    contextManagement: body['context_management'],
    tools: Array.isArray(body['tools']) ? body['tools'].length : 0,
    roles: messages.map((message) => message?.role).join(','),
    blocks,
    signatures,
    maxTokens: body['max_tokens'],
    stream: body['stream'],
  };
}

/** How many objects in `value` carry `key` with a value other than null. */
function countKey(value: unknown, key: string): number {
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + countKey(item, key), 0);
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  for (const [name, inner] of Object.entries(value)) {
    if (name === key && inner !== null && inner !== undefined) count++;
    count += countKey(inner, key);
  }
  return count;
}
