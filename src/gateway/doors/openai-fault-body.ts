import { type AgentFault, formatRetryDelay } from '../domain/agent-fault.ts';
import type { OpenAIErrorBody } from './openai-error-body.ts';

/**
 * A fault agents act on (CONTRACT 6.1), in OpenAI's words, which its SDKs and Codex read: a rate
 * limit is `code: rate_limit_exceeded`, `type` the limit that ran out (`requests`, `tokens`) or
 * `rate_limit_error`, and a message ending "Please try again in 1.5s." (Codex waits that long); a
 * context overflow is `code: context_length_exceeded` on `param: messages` (Codex compacts its
 * history on it), its message OpenAI's sentence when the figures are known.
 */
export function withOpenAIFault(body: OpenAIErrorBody, fault: AgentFault | undefined): OpenAIErrorBody {
  if (fault === undefined) return body;
  if (fault.kind === 'rate_limit') {
    const said = body.error.message.trim();
    const sentence = /[.!?]$/.test(said) ? said : `${said}.`;
    return {
      error: {
        message: `${sentence} Please try again in ${formatRetryDelay(fault.retryAfterMs)}.`,
        type: fault.limit ?? 'rate_limit_error',
        param: null,
        code: 'rate_limit_exceeded',
      },
    };
  }
  const { promptTokens, maxTokens } = fault;
  const message =
    promptTokens !== undefined && maxTokens !== undefined
      ? `This model's maximum context length is ${maxTokens} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`
      : (fault.message ?? body.error.message);
  return {
    error: { message, type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' },
  };
}
