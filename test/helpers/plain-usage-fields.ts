import type { UsageAttempt, UsageRecord } from '../../src/storage/ports.ts';

/**
 * The ledger fields of the agent round (migration 007) as a plain request has them: no prompt-cache
 * tokens, no deployment of several, no response-cache hit, no MCP tool. Records written by tests
 * and benchmarks spread these rather than spelling each field out.
 */
export const PLAIN_REQUEST_FIELDS: Pick<
  UsageRecord,
  | 'cacheReadTokens'
  | 'cacheWrite5mTokens'
  | 'cacheWrite1hTokens'
  | 'deployment'
  | 'cacheHit'
  | 'costSavedUsd'
  | 'mcpServer'
  | 'mcpTool'
  | 'guardrails'
> = Object.freeze({
  cacheReadTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  deployment: null,
  cacheHit: false,
  costSavedUsd: 0,
  mcpServer: null,
  mcpTool: null,
  guardrails: null,
});

/** The same for one upstream attempt of a plain request. */
export const PLAIN_ATTEMPT_FIELDS: Pick<
  UsageAttempt,
  'cacheReadTokens' | 'cacheWrite5mTokens' | 'cacheWrite1hTokens' | 'deployment'
> = Object.freeze({ cacheReadTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, deployment: null });
