import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Content, Tool } from '@google/genai';
import type { ChatCall, ChatStreamEvent, ToolChoice } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { fromGeminiResponse } from './from-gemini-response.ts';
import { fromGeminiStream } from './from-gemini-stream.ts';
import { REPLAYED_THOUGHT_SIGNATURE } from './gemini-tools.ts';
import { decodeSignedCallId } from './signed-call-id.ts';
import { toGeminiRequest } from './to-gemini-request.ts';

const weather = {
  name: 'get_weather',
  description: 'Current weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false },
};

describe('toGeminiRequest with tools', () => {
  const loop: ChatCall = {
    model: 'gemini-2.5-flash',
    tools: [weather, { name: 'get_time', parameters: { type: 'object' } }],
    toolChoice: 'auto',
    stop: ['END'],
    messages: [
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking.',
        toolCalls: [
          { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
        ],
      },
      { role: 'tool', toolCallId: 'call_1', content: '{"temp":12}' },
      { role: 'tool', toolCallId: 'call_2', content: 'sunny' },
      { role: 'user', content: 'Umbrella?' },
      { role: 'tool', content: 'legacy result', name: 'lookup' },
    ],
  };

  it('declares functions with their JSON Schema, replays calls and answers them with functionResponse parts', () => {
    const request = toGeminiRequest(loop);
    // The SDK's own types accept the parts and declarations: they are Gemini's wire format.
    const contents: Content[] = request.contents;
    const tools: Tool[] | undefined = request.tools;
    assert.deepEqual(
      { ...request, contents, tools },
      {
        contents: [
          { role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] },
          {
            role: 'model',
            parts: [
              { text: 'Checking.' },
              {
                functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } },
                thoughtSignature: REPLAYED_THOUGHT_SIGNATURE,
              },
              { functionCall: { id: 'call_2', name: 'get_weather', args: { city: 'Rome' } } },
            ],
          },
          {
            role: 'user',
            parts: [
              { functionResponse: { id: 'call_1', name: 'get_weather', response: { temp: 12 } } },
              { functionResponse: { id: 'call_2', name: 'get_weather', response: { result: 'sunny' } } },
              { text: 'Umbrella?' },
              { text: 'Tool result (lookup): legacy result' },
            ],
          },
        ],
        tools: [
          {
            functionDeclarations: [
              {
                name: 'get_weather',
                description: 'Current weather',
                parametersJsonSchema: weather.parameters,
              },
              { name: 'get_time', parametersJsonSchema: { type: 'object' } },
            ],
          },
        ],
        toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
        generationConfig: { stopSequences: ['END'] },
      },
    );
  });

  it('maps every tool choice to a function-calling mode', () => {
    const cases: [ToolChoice, unknown][] = [
      ['auto', { mode: 'AUTO' }],
      ['none', { mode: 'NONE' }],
      ['required', { mode: 'ANY' }],
      [{ name: 'get_weather' }, { mode: 'ANY', allowedFunctionNames: ['get_weather'] }],
    ];
    for (const [toolChoice, expected] of cases) {
      const request = toGeminiRequest({
        model: 'm',
        tools: [weather],
        toolChoice,
        messages: [{ role: 'user', content: 'hi' }],
      });
      assert.deepEqual(request.toolConfig?.functionCallingConfig, expected);
    }
  });

  it('a result answering no earlier call, a JSON array, and calls with bad arguments', () => {
    const request = toGeminiRequest({
      model: 'm',
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'f', arguments: 'not json' }] },
        { role: 'tool', toolCallId: 'a', content: '[1,2]' },
        { role: 'tool', toolCallId: 'unknown', content: 'orphan' },
      ],
    });
    const contents: Content[] = request.contents;
    assert.deepEqual(contents.slice(1), [
      {
        role: 'model',
        parts: [
          { functionCall: { id: 'a', name: 'f', args: {} }, thoughtSignature: REPLAYED_THOUGHT_SIGNATURE },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'a', name: 'f', response: { result: '[1,2]' } } },
          { text: 'Tool result: orphan' },
        ],
      },
    ]);
    assert.equal('tools' in request, false);
  });
});

const answer = (parts: unknown[], extra: object = {}) => ({
  candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
  usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5 },
  modelVersion: 'gemini-2.5-flash',
  ...extra,
});

describe('fromGeminiResponse with function calls', () => {
  it('reads parallel calls in order, Gemini ids kept (the signed one inside its id), and STOP with calls as tool_calls', () => {
    const result = fromGeminiResponse(
      answer([
        { text: 'Checking.' },
        { functionCall: { id: 'g1', name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'sig' },
        { functionCall: { id: 'g2', name: 'get_weather', args: { city: 'Rome' } } },
      ]),
      'gemini-2.5-flash',
      'provider-c',
    );
    assert.equal(result.content, 'Checking.');
    assert.equal(result.finishReason, 'tool_calls');
    const [signed] = result.toolCalls ?? [];
    assert.deepEqual(decodeSignedCallId(signed?.id ?? ''), { id: 'g1', thoughtSignature: 'sig' });
    assert.deepEqual(result.toolCalls, [
      { id: signed?.id, name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'g2', name: 'get_weather', arguments: '{"city":"Rome"}' },
    ]);
  });

  it('calls without ids are named from the responseId, else the request id, and positions', () => {
    const parts = [{ functionCall: { name: 'f', args: {} } }, { functionCall: { name: 'g' } }];
    const named = fromGeminiResponse(answer(parts, { responseId: 'resp.1' }), 'm', 'provider-c', 'req-9');
    assert.deepEqual(
      named.toolCalls?.map((call) => call.id),
      ['call_resp_1_0', 'call_resp_1_1'],
    );
    assert.equal(named.toolCalls?.[1]?.arguments, '{}');
    const unnamed = fromGeminiResponse(answer(parts), 'm', 'provider-c', 'req-9');
    assert.deepEqual(
      unnamed.toolCalls?.map((call) => call.id),
      ['call_req-9_0', 'call_req-9_1'],
    );
  });

  it('a functionCall without a name, or with args that are not an object, is an invalid_response', () => {
    for (const part of [{ functionCall: { args: {} } }, { functionCall: { name: 'f', args: [1] } }]) {
      assert.throws(
        () => fromGeminiResponse(answer([part]), 'm', 'provider-c'),
        (e: unknown) => e instanceof ProviderError && e.failure === 'invalid_response',
      );
    }
  });
});

describe('fromGeminiStream with function calls', () => {
  it('sends each whole functionCall as it arrives, numbering id-less calls across chunks', async () => {
    const chunks = [
      { candidates: [{ content: { role: 'model', parts: [{ text: 'Let me check.' }] } }], responseId: 'r1' },
      {
        candidates: [
          { content: { role: 'model', parts: [{ functionCall: { name: 'a', args: { x: 1 } } }] } },
        ],
        responseId: 'r1',
      },
      {
        ...answer([
          { functionCall: { name: 'b', args: {} } },
          { functionCall: { id: 'own', name: 'c', args: {} } },
        ]),
        responseId: 'r1',
      },
    ];
    async function* source() {
      for (const chunk of chunks) yield { data: JSON.stringify(chunk) };
    }
    const events: ChatStreamEvent[] = [];
    for await (const event of fromGeminiStream(source(), 'gemini-2.5-flash', 'provider-c', 'req'))
      events.push(event);
    assert.deepEqual(events, [
      { type: 'model', model: 'gemini-2.5-flash' },
      { type: 'delta', content: 'Let me check.' },
      { type: 'tool_call', call: { id: 'call_r1_0', name: 'a', arguments: '{"x":1}' } },
      { type: 'tool_call', call: { id: 'call_r1_1', name: 'b', arguments: '{}' } },
      { type: 'tool_call', call: { id: 'own', name: 'c', arguments: '{}' } },
      { type: 'finish', reason: 'tool_calls' },
      { type: 'usage', usage: { inputTokens: 10, outputTokens: 5 } },
    ]);
  });
});
