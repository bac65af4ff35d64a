/** A chat message as the gateway's interface defines it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  name?: string;
}

/** Why an upstream stopped writing, in the gateway's words rather than each vendor's. */
export type FinishReason = 'stop' | 'length' | 'content_filter' | 'tool_calls' | 'other';
