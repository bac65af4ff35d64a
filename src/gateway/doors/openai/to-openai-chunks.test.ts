import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { NO_CACHE_USAGE } from '../../domain/usage.ts';
import { answerAsStream } from '../../services/use-cases/run-chat-stream.ts';
import { type ChatStreamEvent, ChunkEncoder, DONE_FRAME, toOpenAIChunks } from './to-openai-chunks.ts';

const usage = { tokensIn: 7, tokensOut: 3, estimatedCost: 0.0001, estimated: false, ...NO_CACHE_USAGE };
const options = { id: 'chat_1', model: 'gpt-x', created: 1_700_000_000, includeUsage: true };

/** Every `data:` payload of the frames, parsed; `[DONE]` kept as text. */
function payloads(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      assert.ok(frame.startsWith('data: '), frame);
      const data = frame.slice('data: '.length);
      return data === '[DONE]' ? data : JSON.parse(data);
    });
}

async function run(
  events: ChatStreamEvent[],
  includeUsage = true,
): Promise<{ frames: string[]; last: string }> {
  async function* source() {
    yield* events;
  }
  const generator = toOpenAIChunks(source(), new ChunkEncoder({ ...options, includeUsage }));
  const frames: string[] = [];
  for (;;) {
    const next = await generator.next();
    if (next.done) return { frames, last: next.value };
    frames.push(next.value);
  }
}

describe('OpenAI stream chunks', () => {
  it('role first, content deltas, finish, usage with cost, [DONE]', async () => {
    const { frames, last } = await run([
      { event: 'delta', data: { content: 'Hel' } },
      { event: 'delta', data: { content: 'lo "x"\n' } },
      {
        event: 'done',
        data: {
          id: 'chat_1',
          model: 'gpt-x',
          message: { content: 'Hello "x"\n' },
          finishReason: 'stop',
          usage,
        },
      },
    ]);
    const chunks = payloads(frames.join('') + last);
    assert.equal(chunks.at(-1), '[DONE]');
    const [role, first, second, finish, usageChunk] = chunks as ChatCompletionChunk[];
    for (const chunk of [role, first, second, finish, usageChunk]) {
      assert.equal(chunk?.id, 'chat_1');
      assert.equal(chunk?.object, 'chat.completion.chunk');
      assert.equal(chunk?.created, options.created);
      assert.equal(chunk?.model, 'gpt-x');
    }
    assert.deepEqual(role?.choices, [
      {
        index: 0,
        delta: { role: 'assistant', content: '', refusal: null },
        logprobs: null,
        finish_reason: null,
      },
    ]);
    assert.equal(role?.usage, null);
    assert.equal(first?.choices[0]?.delta.content, 'Hel');
    assert.equal(second?.choices[0]?.delta.content, 'lo "x"\n');
    assert.deepEqual(finish?.choices, [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]);
    assert.deepEqual(usageChunk?.choices, []);
    assert.deepEqual(usageChunk?.usage, {
      prompt_tokens: 7,
      completion_tokens: 3,
      total_tokens: 10,
      prompt_tokens_details: { cached_tokens: 0 },
      cost_usd: 0.0001,
    });
    assert.ok(last.endsWith(DONE_FRAME));
  });

  it('without include_usage: no usage field and no usage chunk', async () => {
    const { frames, last } = await run(
      [{ event: 'done', data: { id: 'chat_1', model: 'gpt-x', message: { content: '' }, usage } }],
      false,
    );
    const chunks = payloads(frames.join('') + last) as Record<string, unknown>[];
    assert.equal(chunks.length, 3);
    assert.equal('usage' in (chunks[0] as object), false);
    assert.equal('usage' in (chunks[1] as object), false);
  });

  it('tool calls: one delta per call with index, id, type and the whole arguments; finish tool_calls', async () => {
    const { frames, last } = await run([
      { event: 'tool_call', data: { id: 'call_a', name: 'weather', arguments: '{"city":"Paris"}' } },
      { event: 'tool_call', data: { id: 'call_b', name: 'time', arguments: '{}' } },
      {
        event: 'done',
        data: {
          id: 'chat_1',
          model: 'gpt-x',
          message: {
            content: '',
            toolCalls: [
              { id: 'call_a', name: 'weather', arguments: '{"city":"Paris"}' },
              { id: 'call_b', name: 'time', arguments: '{}' },
            ],
          },
          finishReason: 'tool_calls',
          usage,
        },
      },
    ]);
    const chunks = payloads(frames.join('') + last) as ChatCompletionChunk[];
    assert.deepEqual(chunks[1]?.choices[0]?.delta.tool_calls, [
      {
        index: 0,
        id: 'call_a',
        type: 'function',
        function: { name: 'weather', arguments: '{"city":"Paris"}' },
      },
    ]);
    assert.equal(chunks[2]?.choices[0]?.delta.tool_calls?.[0]?.index, 1);
    assert.equal(chunks[3]?.choices[0]?.finish_reason, 'tool_calls');
  });

  it('an error after the first byte: the error object as data, and no [DONE]', async () => {
    const { last } = await run([
      { event: 'delta', data: { content: 'par' } },
      {
        event: 'error',
        data: { error: { code: 'upstream_error', message: 'provider-a failed during the stream' } },
      },
    ]);
    assert.equal(last.includes('[DONE]'), false);
    assert.deepEqual(payloads(last), [
      {
        error: {
          message: 'provider-a failed during the stream',
          type: 'server_error',
          param: null,
          code: 'upstream_error',
        },
      },
    ]);
  });

  it('a whole answer as a stream (the JSON use case)', async () => {
    const { events } = answerAsStream({
      id: 'chat_1',
      provider: 'provider-a',
      model: 'gpt-x',
      message: { role: 'assistant', content: '{"a":1}' },
      finishReason: 'stop',
      usage,
      latencyMs: 1,
    });
    const collected: ChatStreamEvent[] = [];
    for await (const event of events) collected.push(event);
    const { frames, last } = await run(collected);
    const chunks = payloads(frames.join('') + last) as ChatCompletionChunk[];
    assert.equal(chunks[1]?.choices[0]?.delta.content, '{"a":1}');
    assert.equal(chunks[2]?.choices[0]?.finish_reason, 'stop');
    assert.equal(chunks.at(-1), '[DONE]');
  });
});
