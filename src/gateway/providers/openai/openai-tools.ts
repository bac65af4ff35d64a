import type { ToolChoice, ToolDefinition } from '../provider.ts';

/** A Chat Completions function tool. */
export interface OpenAITool {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

export type OpenAIToolChoice =
  | 'auto'
  | 'none'
  | 'required'
  | { type: 'function'; function: { name: string } };

/** An assistant's call as Chat Completions writes it: `arguments` is JSON text, as the model wrote it. */
export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export function toOpenAITools(tools: readonly ToolDefinition[]): OpenAITool[] {
  return tools.map((tool) => {
    const fn: OpenAITool['function'] = { name: tool.name, parameters: tool.parameters };
    if (tool.description !== undefined) fn.description = tool.description;
    return { type: 'function', function: fn };
  });
}

/** The gateway's choices are OpenAI's, except that a named tool is `{type: 'function', function: {name}}`. */
export function toOpenAIToolChoice(choice: ToolChoice): OpenAIToolChoice {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}
