/**
 * The mock upstream's answers to `POST /v1/messages`, in Anthropic's wire format (as the
 * recorded fixtures of test/fixtures/anthropic/ have it): the Anthropic door's same-vendor lane
 * relays these bytes, so they must be what an anthropic slot really gets. Built once at start-up,
 * as the OpenAI answers are, so the mock costs the same whichever format it speaks.
 *
 * Every text delta carries `w0 `, `w1 `… like the OpenAI streams, so the agent workloads' paced
 * client (agent-scenarios.ts, TOKEN_PATTERN) finds the tokens in either format.
 */

/** The upstream's own name for the model (what the gateway prices and records). */
const MODEL = 'claude-haiku-4-5-20251001';
const INPUT_TOKENS = 21;
/** A Claude Code turn reads most of its prompt from the prompt cache: the accounting is exercised. */
const CACHE_READ_TOKENS = 2048;
const CACHE_WRITE_TOKENS = 0;

/** A relayed answer keeps this id (the gateway's own answers have ids of its own). */
export const MOCK_MESSAGE_ID = 'msg_bench_mock';

const usage = (output: number) => ({
  input_tokens: INPUT_TOKENS,
  cache_creation_input_tokens: CACHE_WRITE_TOKENS,
  cache_read_input_tokens: CACHE_READ_TOKENS,
  output_tokens: output,
});

export const anthropicMessage = Buffer.from(
  JSON.stringify({
    id: MOCK_MESSAGE_ID,
    type: 'message',
    role: 'assistant',
    model: MODEL,
    content: [{ type: 'text', text: 'Paris is the capital of France.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { ...usage(12), service_tier: 'standard' },
  }),
);

const event = (name: string, data: object) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * A stream of `count` text deltas, one Buffer per write: `message_start` and
 * `content_block_start` together first (Anthropic sends them back to back, before the first
 * token), then each delta, `content_block_stop`, `message_delta` with the final usage, and
 * `message_stop`. That is `count` + 4 writes, as many as the OpenAI stream of the same count
 * has (role, chunks, finish, usage, [DONE]), so the two formats pace alike.
 */
export function anthropicStream(count: number): Buffer[] {
  const start = event('message_start', {
    type: 'message_start',
    message: {
      id: MOCK_MESSAGE_ID,
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage(1), service_tier: 'standard' },
    },
  });
  const blockStart = event('content_block_start', {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'text', text: '' },
  });
  const writes = [Buffer.from(start + blockStart)];
  for (let i = 0; i < count; i++)
    writes.push(
      Buffer.from(
        event('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text: `w${i} ` },
        }),
      ),
    );
  writes.push(Buffer.from(event('content_block_stop', { type: 'content_block_stop', index: 0 })));
  writes.push(
    Buffer.from(
      event('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: usage(count * 2),
      }),
    ),
  );
  writes.push(Buffer.from(event('message_stop', { type: 'message_stop' })));
  return writes;
}
