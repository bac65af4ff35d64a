import { collectBodyTexts, writeBodyTexts } from '../../guardrails/body-texts.ts';
import type { Guardrails, RequestGuards } from '../../guardrails/guardrails.ts';
import type { RequestRun } from '../run/request-run.ts';

/**
 * The MCP phase (CONTRACT 6.6) over one side of a tool call through the MCP gateway: the
 * arguments before they go to the server, or the server's result before it goes to the client.
 * Its texts (every string but ids, types and bytes, as body-texts.ts reads a body) are masked in
 * place; the guard that blocked is answered, for the caller to turn into a tool error.
 */
export async function guardToolCall(
  guardrails: Guardrails,
  guards: RequestGuards | undefined,
  run: RequestRun,
  value: unknown,
): Promise<string | undefined> {
  if (guards === undefined || guards.mcp.length === 0 || value === undefined) return undefined;
  const { slots, texts } = collectBodyTexts(value);
  if (texts.length === 0) return undefined;
  const verdict = await guardrails.check('mcp', guards.mcp, texts, guards.context);
  run.guardrails.events.push(...verdict.events);
  if (verdict.blockedBy !== undefined) return verdict.blockedBy;
  if (verdict.changed) writeBodyTexts(slots, texts, verdict.texts);
  return undefined;
}
