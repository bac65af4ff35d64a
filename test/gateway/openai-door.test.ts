import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { redSquarePng } from '../helpers/tiny-png.ts';

/** The official OpenAI SDK pointed at the gateway by base URL and key only. */
function clientFor(origin: string, options: { apiKey?: string; maxRetries?: number } = {}): OpenAI {
  return new OpenAI({
    baseURL: `${origin}/v1`,
    apiKey: options.apiKey ?? `${APP}:${SECRET}`,
    maxRetries: options.maxRetries ?? 0,
  });
}

describe('OpenAI door: chat completions through the official SDK', () => {
  const gw = shareGateway();
  let client: OpenAI;
  before(async () => {
    await gw.gateway.listen({ port: 0, host: '127.0.0.1' });
    client = clientFor(`http://127.0.0.1:${(gw.gateway.server.address() as AddressInfo).port}`);
  });

  it('answers a chat.completion with usage, and the cost in a header', async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'developer', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'What is the capital of France?' }] },
        ],
        max_completion_tokens: 1000,
      })
      .withResponse();
    assert.equal(data.object, 'chat.completion');
    assert.equal(data.choices.length, 1);
    const choice = data.choices[0];
    assert.equal(choice?.index, 0);
    assert.equal(choice?.message.role, 'assistant');
    assert.equal(typeof choice?.message.content, 'string');
    assert.ok((choice?.message.content ?? '').length > 0);
    assert.equal(choice?.message.refusal, null);
    assert.equal(choice?.logprobs, null);
    assert.equal(choice?.finish_reason, 'stop');
    assert.ok(data.usage !== undefined && data.usage.prompt_tokens > 0 && data.usage.completion_tokens > 0);
    assert.equal(data.usage.total_tokens, data.usage.prompt_tokens + data.usage.completion_tokens);
    assert.ok(Math.abs(data.created - Date.now() / 1000) < 60);
    assert.match(response.headers.get('x-gateway-cost-usd') ?? '', /^[0-9.e-]+$/);
  });

  it('a token limit the answer reaches ends it with finish_reason length', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Tell me a long story about the sea.' }],
      max_tokens: 3,
    });
    assert.equal(completion.choices[0]?.finish_reason, 'length');
    assert.ok((completion.usage?.completion_tokens ?? 99) <= 3);
  });

  it('streams chunks the SDK assembles, with include_usage and the cost in the usage chunk', async () => {
    const stream = client.chat.completions.stream({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Say something.' }],
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    let text = '';
    stream.on('content', (delta) => {
      text += delta;
    });
    for await (const chunk of stream) chunks.push(chunk);
    const final = await stream.finalChatCompletion();
    assert.ok(chunks.length >= 3);
    assert.equal(chunks[0]?.choices[0]?.delta.role, 'assistant');
    const last = chunks.at(-1);
    assert.deepEqual(last?.choices, []);
    const usage = last?.usage as (OpenAI.CompletionUsage & { cost_usd?: number }) | undefined;
    assert.ok(usage !== undefined && usage.prompt_tokens > 0);
    assert.equal(typeof usage.cost_usd, 'number');
    assert.equal(chunks.at(-2)?.choices[0]?.finish_reason, 'stop');
    assert.equal(final.choices[0]?.message.content, text);
    assert.ok(text.length > 0);
    assert.equal(new Set(chunks.map((c) => c.id)).size, 1);
  });

  it('json_schema runs the structured-output use case and answers valid JSON', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, population: { type: 'integer', minimum: 0 } },
      required: ['city', 'population'],
      additionalProperties: false,
    };
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'A city.' }],
      response_format: { type: 'json_schema', json_schema: { name: 'city', schema, strict: true } },
    });
    const value = JSON.parse(completion.choices[0]?.message.content ?? '');
    assert.equal(typeof value.city, 'string');
    assert.ok(Number.isInteger(value.population) && value.population >= 0);
  });

  it('json_object answers a JSON object', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Some JSON.' }],
      response_format: { type: 'json_object' },
    });
    const value = JSON.parse(completion.choices[0]?.message.content ?? '');
    assert.equal(typeof value, 'object');
    assert.ok(value !== null && !Array.isArray(value));
  });

  it('refuses n > 1, logprobs and audio by name with BadRequestError', async () => {
    for (const [extra, param] of [
      [{ n: 2 }, 'n'],
      [{ logprobs: true }, 'logprobs'],
      [{ top_logprobs: 3 }, 'top_logprobs'],
      [{ modalities: ['text', 'audio'] }, 'modalities'],
      [{ prediction: { type: 'content', content: 'x' } }, 'prediction'],
    ] as const) {
      await assert.rejects(
        client.chat.completions.create({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'hi' }],
          ...(extra as object),
        }),
        (error: unknown) => {
          assert.ok(error instanceof OpenAI.BadRequestError, String(error));
          assert.equal(error.param, param);
          assert.equal(error.type, 'invalid_request_error');
          return true;
        },
      );
    }
  });

  it('refuses audio parts and file ids, naming the part', async () => {
    await assert.rejects(
      client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
            ],
          },
        ],
      }),
      (error: unknown) =>
        error instanceof OpenAI.BadRequestError && error.param === 'messages[0].content[1].type',
    );
    await assert.rejects(
      client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc' } }] }],
      }),
      (error: unknown) =>
        error instanceof OpenAI.BadRequestError && error.param === 'messages[0].content[0].file.file_id',
    );
  });

  it('takes an image part; the simulated usage counts it as width × height / 750 tokens', async () => {
    const text = { type: 'text' as const, text: 'What is this?' };
    const image = {
      type: 'image_url' as const,
      image_url: { url: `data:image/png;base64,${redSquarePng(300).toString('base64')}` },
    };
    const plain = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: [text] }],
    });
    const withImage = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: [text, image] }],
    });
    assert.equal(
      (withImage.usage?.prompt_tokens ?? 0) - (plain.usage?.prompt_tokens ?? 0),
      (300 * 300) / 750,
    );
  });

  it('ignores harmless unknown fields', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      user: 'someone',
      store: false,
      seed: 7,
      service_tier: 'auto',
      // A field OpenAI may add tomorrow.
      ...({ some_future_field: { x: 1 } } as object),
    });
    assert.equal(completion.object, 'chat.completion');
  });

  it('a failure after the first byte: the SDK raises the error object, and no [DONE] follows', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Tell me a long story about the sea and its ships.' }],
      stream: true,
      metadata: { simulated: { fault: 'stream_cut' } } as never,
    });
    let text = '';
    await assert.rejects(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      })(),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError, String(error));
        assert.equal(error.code, 'upstream_error');
        assert.equal(error.type, 'server_error');
        return true;
      },
    );
    assert.ok(text.length > 0, 'content arrived before the cut');
    const raw = await gw.post('/v1/chat/completions', {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Tell me a long story about the sea and its ships.' }],
      stream: true,
      metadata: { simulated: { fault: 'stream_cut' } },
    });
    assert.match(raw.text, /^data: \{"error":/m);
    assert.equal(raw.text.includes('[DONE]'), false);
  });
});
