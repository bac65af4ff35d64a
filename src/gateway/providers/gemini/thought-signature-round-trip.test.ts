import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { geminiJsonFixture, geminiStreamEvents } from '../../../../test/helpers/mock-gemini-server.ts';
import type { ChatMessage, ChatStreamEvent, ToolCall } from '../provider.ts';
import { fromGeminiResponse } from './from-gemini-response.ts';
import { fromGeminiStream } from './from-gemini-stream.ts';
import { REPLAYED_THOUGHT_SIGNATURE } from './gemini-tools.ts';
import { SIGNED_ID_PREFIX } from './signed-call-id.ts';
import { toGeminiRequest } from './to-gemini-request.ts';

/**
 * What Gemini 3 demands of a tool loop (ai.google.dev/gemini-api/docs/thought-signatures): the
 * signature on a functionCall part goes back on that part when the history is sent again; of
 * parallel calls only the first carries one. The gateway carries it in the id it hands out, the
 * client echoes the id, and the next request puts the signature back.
 */

const question: ChatMessage = { role: 'user', content: 'Weather in Paris and Rome?' };
const weather = { name: 'get_weather', parameters: { type: 'object' } };

function sse(name: string): AsyncIterable<{ data: string }> {
  return (async function* () {
    for (const event of geminiStreamEvents(name)) yield { data: event.trim().slice('data: '.length) };
  })();
}

async function drain(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The next turn of the loop: the answer's calls echoed by the client, and a result for each. */
function nextTurn(calls: readonly ToolCall[]): ChatMessage[] {
  return [
    question,
    { role: 'assistant', content: '', toolCalls: calls.map((call) => ({ ...call })) },
    ...calls.map((call, n): ChatMessage => ({ role: 'tool', toolCallId: call.id, content: `{"n":${n}}` })),
  ];
}

describe('thought signatures through a tool loop', () => {
  it('parallel calls: the first call signature comes back on the first functionCall part, the other stays bare', () => {
    const fixture = geminiJsonFixture('generate-content-signed-calls.json');
    const signature: string = fixture.candidates[0].content.parts[1].thoughtSignature;
    const answer = fromGeminiResponse(fixture, 'gemini-3-pro-preview', 'provider-c', 'req-1');
    const calls = answer.toolCalls ?? [];
    assert.equal(calls.length, 2);
    assert.ok(calls[0]?.id.startsWith(SIGNED_ID_PREFIX), 'the signed call gets an id that carries it');
    assert.equal(calls[1]?.id, 'call_aF3kaZ2rN9uWz7IPp8Sm4Qk_1', 'the unsigned one keeps a plain id');

    const request = toGeminiRequest({
      model: 'gemini-3-pro-preview',
      tools: [weather],
      messages: nextTurn(calls),
    });
    assert.deepEqual(request.contents.slice(1), [
      {
        role: 'model',
        parts: [
          {
            functionCall: {
              id: 'call_aF3kaZ2rN9uWz7IPp8Sm4Qk_0',
              name: 'get_weather',
              args: { city: 'Paris' },
            },
            thoughtSignature: signature,
          },
          {
            functionCall: {
              id: 'call_aF3kaZ2rN9uWz7IPp8Sm4Qk_1',
              name: 'get_weather',
              args: { city: 'Rome' },
            },
          },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'call_aF3kaZ2rN9uWz7IPp8Sm4Qk_0',
              name: 'get_weather',
              response: { n: 0 },
            },
          },
          {
            functionResponse: {
              id: 'call_aF3kaZ2rN9uWz7IPp8Sm4Qk_1',
              name: 'get_weather',
              response: { n: 1 },
            },
          },
        ],
      },
    ]);
  });

  it('streaming: the tool_call event id carries the signature of the streamed call', async () => {
    const name = 'stream-generate-content-signed-call.sse';
    const signed = JSON.parse(geminiStreamEvents(name)[1]!.trim().slice('data: '.length));
    const signature: string = signed.candidates[0].content.parts[0].thoughtSignature;
    const events = await drain(fromGeminiStream(sse(name), 'gemini-3-flash-preview', 'provider-c', 'req-2'));
    const calls = events.flatMap((event) => (event.type === 'tool_call' ? [event.call] : []));
    assert.equal(calls.length, 1);
    assert.ok(
      events.every((event) => event.type !== 'delta'),
      'the thought part and the empty text part make no delta',
    );
    assert.deepEqual(
      events.find((event) => event.type === 'finish'),
      { type: 'finish', reason: 'tool_calls' },
    );

    const request = toGeminiRequest({ model: 'gemini-3-flash-preview', messages: nextTurn(calls) });
    assert.deepEqual(request.contents[1], {
      role: 'model',
      parts: [
        {
          functionCall: {
            id: 'call_c9TkaceAEqqKz7IPm_yOuQM_0',
            name: 'get_weather',
            args: { city: 'Paris' },
          },
          thoughtSignature: signature,
        },
      ],
    });
  });

  it('a text answer whose signature arrives last on an empty text part streams its text and nothing else', async () => {
    const events = await drain(
      fromGeminiStream(
        sse('stream-generate-content-signed-text.sse'),
        'gemini-3-flash-preview',
        'provider-c',
      ),
    );
    assert.deepEqual(
      events.filter((event) => event.type === 'delta' || event.type === 'finish'),
      [
        { type: 'delta', content: 'It is 18 °C' },
        { type: 'delta', content: ' and sunny in Paris.' },
        { type: 'finish', reason: 'stop' },
      ],
    );
  });

  it('sequential steps keep each its own signature', () => {
    const fixture = geminiJsonFixture('generate-content-signed-calls.json');
    const firstStep = fromGeminiResponse(fixture, 'gemini-3-pro-preview', 'provider-c').toolCalls ?? [];
    const secondFixture = structuredClone(fixture);
    secondFixture.responseId = 'second';
    secondFixture.candidates[0].content.parts[1].thoughtSignature = 'EhQKEgEaBwoFc3RlcDI=';
    const secondStep =
      fromGeminiResponse(secondFixture, 'gemini-3-pro-preview', 'provider-c').toolCalls ?? [];
    const request = toGeminiRequest({
      model: 'gemini-3-pro-preview',
      messages: [...nextTurn(firstStep), ...nextTurn(secondStep).slice(1)],
    });
    const signatures = request.contents
      .filter((content) => content.role === 'model')
      .map((content) =>
        content.parts.map((part) => ('thoughtSignature' in part ? part.thoughtSignature : null)),
      );
    assert.deepEqual(signatures, [
      [fixture.candidates[0].content.parts[1].thoughtSignature, null],
      ['EhQKEgEaBwoFc3RlcDI=', null],
    ]);
  });

  it('a call from another vendor, or an id that only looks signed, gets the documented stand-in on the first call', () => {
    const lookalike = `${SIGNED_ID_PREFIX}${Buffer.from('made up by a client').toString('base64url')}`;
    for (const id of ['call_Abc123OpenAI', 'toolu_01A09q90qw90lq917835lq9', lookalike]) {
      const request = toGeminiRequest({
        model: 'gemini-3-pro-preview',
        messages: nextTurn([
          { id, name: 'get_weather', arguments: '{}' },
          { id: `${id}b`, name: 'get_weather', arguments: '{}' },
        ]),
      });
      assert.deepEqual(request.contents[1]?.parts, [
        { functionCall: { id, name: 'get_weather', args: {} }, thoughtSignature: REPLAYED_THOUGHT_SIGNATURE },
        { functionCall: { id: `${id}b`, name: 'get_weather', args: {} } },
      ]);
      assert.deepEqual(
        request.contents[2]?.parts.map((part) =>
          'functionResponse' in part ? part.functionResponse.id : null,
        ),
        [id, `${id}b`],
      );
    }
  });
});
