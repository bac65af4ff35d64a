import type { ResponseEcho } from './read-responses-request.ts';
import type { OutputItem } from './to-response-output.ts';

/** What differs between two snapshots of one Response. */
export interface ResponseState {
  id: string;
  createdAt: number;
  model: string;
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  completedAt?: number | null;
  output?: readonly OutputItem[];
  error?: { code: string; message: string } | null;
  incompleteDetails?: { reason: string } | null;
  usage?: unknown;
}

/**
 * A ResponseResource with every field the Open Responses specification requires
 * (docs/clients/open-responses-notes.md): the state of the answer, and the request's settings
 * repeated (`echo`).
 */
export function toResponseResource(state: ResponseState, echo: ResponseEcho): Record<string, unknown> {
  return {
    id: state.id,
    object: 'response',
    created_at: state.createdAt,
    completed_at: state.completedAt ?? null,
    status: state.status,
    incomplete_details: state.incompleteDetails ?? null,
    model: state.model,
    previous_response_id: echo.previous_response_id,
    instructions: echo.instructions,
    output: state.output ?? [],
    error: state.error ?? null,
    tools: echo.tools,
    tool_choice: echo.tool_choice,
    truncation: echo.truncation,
    parallel_tool_calls: echo.parallel_tool_calls,
    text: echo.text,
    top_p: echo.top_p,
    presence_penalty: 0,
    frequency_penalty: 0,
    top_logprobs: 0,
    temperature: echo.temperature,
    reasoning: echo.reasoning,
    usage: state.usage ?? null,
    max_output_tokens: echo.max_output_tokens,
    max_tool_calls: echo.max_tool_calls,
    store: echo.store,
    background: false,
    service_tier: echo.service_tier,
    metadata: echo.metadata,
    safety_identifier: echo.safety_identifier,
    prompt_cache_key: echo.prompt_cache_key,
    user: echo.user,
  };
}
