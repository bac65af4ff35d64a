import type { AgentFault } from '../../domain/agent-fault.ts';
import type { AnthropicErrorBody } from './anthropic-error-body.ts';

/**
 * A fault agents act on (CONTRACT 6.1), in Anthropic's words: a context overflow is the 400
 * `invalid_request_error` whose message starts "prompt is too long: N tokens > M maximum", which
 * Claude Code compacts its conversation on, with the upstream's figures when its message gave
 * them, else the gateway's count and the model's window (CONTRACT 6.9); where the window is known
 * to nobody, the upstream's own message follows "prompt is too long:". A rate limit is already
 * `rate_limit_error` by its status, with `retry-after`.
 */
export function withAnthropicFault(
  body: AnthropicErrorBody,
  fault: AgentFault | undefined,
): AnthropicErrorBody {
  if (fault?.kind !== 'context_overflow') return body;
  const { promptTokens, maxTokens } = fault;
  const message =
    promptTokens !== undefined && maxTokens !== undefined
      ? `prompt is too long: ${promptTokens} tokens > ${maxTokens} maximum`
      : `prompt is too long: ${fault.message ?? body.error.message}`;
  return { ...body, error: { type: 'invalid_request_error', message } };
}
