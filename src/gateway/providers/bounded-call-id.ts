import { createHash } from 'node:crypto';

/**
 * A tool call id as another vendor will accept it. Ids travel between vendors (a conversation may
 * fall back to another slot, or be routed elsewhere on its next turn), and the ids the gateway hands
 * out for signed Gemini calls are long (gemini/signed-call-id.ts): OpenAI refuses a call id longer
 * than 40 characters ("string too long. Expected a string with maximum length 40"), and Anthropic
 * takes only `^[a-zA-Z0-9_-]+$`, with no documented length, where 64 is the smallest limit seen.
 * An id within the vendor's limits goes as it is; any other becomes `prefix` and 32 hex characters
 * of its SHA-256: the same for the call and for the result answering it, in every request, on every
 * instance, so the two stay paired. The original stays the client's id; only the upstream sees this.
 */
export function boundedCallId(id: string, vendor: 'openai' | 'anthropic'): string {
  const fits = vendor === 'openai' ? id.length <= 40 : id.length <= 64 && ANTHROPIC_ID.test(id);
  if (fits) return id;
  const digest = createHash('sha256').update(id).digest('hex').slice(0, 32);
  return `${vendor === 'openai' ? 'call_' : 'toolu_'}${digest}`;
}

const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/;
