import { seededRandom } from '../../domain/hash-seed.ts';
import type { ChatMessage } from '../provider.ts';

const SENTENCES = [
  'This answer comes from the simulated provider, so no upstream model was called.',
  'It is deterministic: the same conversation always gets the same reply.',
  'Tokens are counted with a real tokenizer, so usage and cost behave like a real model.',
  'Bind a provider slot to OpenAI, Anthropic or Gemini to get real completions.',
  'Latency and faults can be injected to rehearse retries and fallbacks.',
  'Streaming splits this text into chunks of a few tokens each.',
];

const QUOTE_LIMIT = 80;

/**
 * The reply of the simulated model: a quote of the last user message (or of the tool result, when
 * the conversation ends with one: the answer an agent loop ends on), then a few stock sentences.
 */
export function simulateReply(messages: readonly ChatMessage[], seed: number): string {
  const last = messages[messages.length - 1];
  const afterTool = last?.role === 'tool';
  const quoted = afterTool ? last : (messages.findLast((m) => m.role === 'user') ?? last);
  // Only the head is quoted: normalising a 4 MiB prompt whole would cost the event loop for nothing.
  const text = (quoted?.content ?? '')
    .slice(0, QUOTE_LIMIT * 8)
    .replace(/\s+/g, ' ')
    .trim();
  const quote = [...text].length > QUOTE_LIMIT ? `${[...text].slice(0, QUOTE_LIMIT).join('')}…` : text;
  const random = seededRandom(seed);
  const count = 2 + Math.floor(random() * 3);
  const start = Math.floor(random() * SENTENCES.length);
  const body = Array.from({ length: count }, (_, i) => SENTENCES[(start + i) % SENTENCES.length]).join(' ');
  if (quote === '') return body;
  return afterTool ? `The tool answered: "${quote}". ${body}` : `You said: "${quote}". ${body}`;
}
