import assert from 'node:assert/strict';
import { before, beforeEach, describe, it } from 'node:test';
import { GoogleGenAI } from '@google/genai';
import { listenForClients } from '../helpers/anthropic-door-client.ts';
import { APP, SECRET } from '../helpers/gateway-harness.ts';
import { geminiJsonFixture } from '../helpers/mock-gemini-server.ts';
import { shareVendorSlots } from '../helpers/vendor-slots.ts';

/**
 * The Gemini API door (CONTRACT 6.3) with the official @google/genai SDK, pointed at the gateway
 * by base URL and key only, in front of the three vendors' strict recording mocks: slot B (gemini)
 * takes the same-vendor lane, A (openai) and C (anthropic) the cross-vendor one.
 */

const KEY = `${APP}:${SECRET}`;

describe('Gemini door: @google/genai through the gateway', () => {
  const slots = shareVendorSlots();
  let ai: GoogleGenAI;
  let origin: string;
  before(async () => {
    origin = await listenForClients(slots.gw);
    ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: origin } });
  });
  beforeEach(() => {
    slots.gemini.reset();
    slots.openai.reset?.();
  });

  it('gemini slot: generateContent reaches Google with the model in the path and the slot key, answered as Google wrote it', async () => {
    const response = await ai.models.generateContent({
      model: 'provider-b/gemini-2.5-flash',
      contents: 'Capital of France?',
      config: { temperature: 0.2 },
    });
    const fixture = geminiJsonFixture('generate-content.json');
    assert.equal(response.text, fixture.candidates[0].content.parts[0].text);
    assert.deepEqual({ ...response.usageMetadata }, fixture.usageMetadata);
    const sent = slots.gemini.requests.at(-1);
    assert.equal(sent?.path, '/v1beta/models/gemini-2.5-flash:generateContent');
    assert.equal(sent?.headers['x-goog-api-key'], 'gemini-key');
    assert.ok(Number(response.sdkHttpResponse?.headers?.['x-gateway-cost-usd']) > 0);
  });

  it('gemini slot: the body reaches the upstream byte for byte (signatures, cachedContent, safety, spacing)', async () => {
    const body =
      '{ "contents":[{"role":"user","parts":[{"text":"h\\u00e9llo"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{"x":1.50}},"thoughtSignature":"skip_thought_signature_validator"}]},' +
      '{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"ok":true}}}]}],\n' +
      '"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"OBJECT","properties":{"x":{"type":"NUMBER"}}}}]}],' +
      '"safetySettings":[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_NONE"}],"cachedContent":"cachedContents/abc",' +
      '"generationConfig":{"temperature":1.0e0,"thinkingConfig":{"includeThoughts":true}} }';
    const reply = await fetch(`${origin}/v1beta/models/provider-b/gemini-2.5-flash:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY },
      body,
    });
    assert.equal(reply.status, 200, await reply.clone().text());
    assert.equal(slots.gemini.requests.at(-1)?.text, body);
  });

  it("gemini slot: a stream is Google's chunks, the last with usageMetadata.costUsd", async () => {
    const chunks = [];
    for await (const chunk of await ai.models.generateContentStream({
      model: 'provider-b/gemini-2.5-flash',
      contents: 'Count to three.',
    }))
      chunks.push(chunk);
    assert.ok(chunks.length > 1);
    const last: any = chunks.at(-1);
    assert.ok(last.usageMetadata.costUsd > 0, JSON.stringify(last.usageMetadata));
    assert.equal(
      slots.gemini.requests.at(-1)?.path,
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
  });

  it('openai slot: translated, with the ignored fields named and the cost in the header', async () => {
    const response = await ai.models.generateContent({
      model: 'provider-a/gpt-4o-mini',
      contents: [{ role: 'user', parts: [{ text: 'Capital of France?' }] }],
      config: {
        systemInstruction: 'Be brief.',
        topK: 40,
        maxOutputTokens: 64,
        safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT' as any, threshold: 'BLOCK_NONE' as any }],
      },
    });
    assert.ok((response.text ?? '').length > 0);
    assert.equal(response.candidates?.[0]?.finishReason, 'STOP');
    const headers = response.sdkHttpResponse?.headers ?? {};
    assert.equal(headers['x-gateway-ignored-fields'], 'safetySettings,generationConfig.topK');
    assert.ok(Number(headers['x-gateway-cost-usd']) > 0);
    const sent: any = slots.openai.requests.at(-1)?.body;
    assert.equal(sent.messages[0].role, 'system');
    assert.equal(sent.messages[0].content, 'Be brief.');
  });

  it('anthropic slot: a function call loop, the call answered by id, streamed', async () => {
    slots.anthropic.replyNext({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    slots.anthropic.replyNext({ text: 'It is sunny.' });
    const tools = [
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'The weather in a city',
            parameters: {
              type: 'OBJECT' as any,
              properties: { city: { type: 'STRING' as any } },
              required: ['city'],
            },
          },
        ],
      },
    ];
    const question = { role: 'user', parts: [{ text: 'Weather in Paris?' }] };
    const first = await ai.models.generateContent({
      model: 'provider-c/claude-sonnet-4-5',
      contents: [question],
      config: { tools },
    });
    const call = first.functionCalls?.[0];
    assert.equal(call?.name, 'get_weather');
    assert.deepEqual(call?.args, { city: 'Paris' });
    const parts = [];
    for await (const chunk of await ai.models.generateContentStream({
      model: 'provider-c/claude-sonnet-4-5',
      contents: [
        question,
        first.candidates?.[0]?.content as any,
        {
          role: 'user',
          parts: [{ functionResponse: { id: call?.id, name: 'get_weather', response: { sky: 'sunny' } } }],
        },
      ],
      config: { tools },
    }))
      parts.push(chunk.text ?? '');
    assert.equal(parts.join(''), 'It is sunny.');
    const sent: any = slots.anthropic.requests.at(-1)?.body;
    const toolResult = sent.messages[2].content[0];
    assert.equal(toolResult.type, 'tool_result');
    assert.equal(toolResult.tool_use_id, sent.messages[1].content.find((b: any) => b.type === 'tool_use').id);
    // Google's Schema became JSON Schema.
    assert.deepEqual(sent.tools[0].input_schema, {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    });
  });
});
