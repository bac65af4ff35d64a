import assert from 'node:assert/strict';
import { it } from 'node:test';
import { APP, type Harness, SECRET } from './gateway-harness.ts';
import type { ScriptedReply } from './scripted-reply.ts';
import { redSquarePng } from './tiny-png.ts';

/**
 * Every door through one cloud kind's slot (CONTRACT 6.4): the native API, OpenAI Chat
 * Completions, Anthropic Messages, Responses and the Gemini API, each whole and streamed, with a
 * tool call and with an image; embeddings on the native, OpenAI and Gemini doors. The cloud's recording mock answers what
 * `replyNext` scripts, and `lastUpstream` says what it received, so each case checks both ends:
 * the client's answer in its door's shape and the request in the cloud's.
 */
export interface CloudUnderTest {
  kind: string;
  gw: () => Harness;
  /** `provider-x/<model>` as clients address it. */
  model: string;
  /** `provider-x/<embedding model>`, when the kind's mock embeds. */
  embedModel?: string;
  replyNext(reply: ScriptedReply): void;
  /** The last model call the mock received, read into what the cases check. */
  lastUpstream(): UpstreamSeen;
}

export interface UpstreamSeen {
  /** The user's texts as the cloud got them. */
  texts: string[];
  /** The declared tools' names. */
  tools: string[];
  /** Whether an image's base64 bytes reached it. */
  image: boolean;
  /** The path called (operation, model), for the lane. */
  path: string;
}

export const PNG = redSquarePng(4).toString('base64');
const TOOL = {
  name: 'get_weather',
  description: 'Weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const CALL = { name: 'get_weather', arguments: { city: 'Paris' } };

type Door = 'native' | 'openai' | 'anthropic' | 'responses' | 'gemini';
type Feature = 'text' | 'tools' | 'image';

/** The request body of a door for a feature. */
function bodyOf(door: Door, feature: Feature, model: string, stream: boolean): Record<string, unknown> {
  const text = `Say hello (${door}, ${feature}).`;
  const base = { model, stream };
  if (door === 'native') {
    const content =
      feature === 'image'
        ? [
            { type: 'text', text },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          ]
        : text;
    const [provider, name] = model.split('/') as [string, string];
    return {
      provider,
      model: name,
      stream,
      messages: [{ role: 'user', content }],
      ...(feature === 'tools' ? { tools: [TOOL] } : {}),
    };
  }
  if (door === 'openai') {
    const content =
      feature === 'image'
        ? [
            { type: 'text', text },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          ]
        : text;
    return {
      ...base,
      messages: [{ role: 'user', content }],
      ...(feature === 'tools' ? { tools: [{ type: 'function', function: TOOL }] } : {}),
    };
  }
  if (door === 'anthropic') {
    const content =
      feature === 'image'
        ? [
            { type: 'text', text },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          ]
        : text;
    return {
      ...base,
      max_tokens: 256,
      messages: [{ role: 'user', content }],
      ...(feature === 'tools'
        ? { tools: [{ name: TOOL.name, description: TOOL.description, input_schema: TOOL.parameters }] }
        : {}),
    };
  }
  if (door === 'gemini') {
    const parts: unknown[] = [{ text }];
    if (feature === 'image') parts.push({ inlineData: { mimeType: 'image/png', data: PNG } });
    return {
      contents: [{ role: 'user', parts }],
      ...(feature === 'tools' ? { tools: [{ functionDeclarations: [TOOL] }] } : {}),
    };
  }
  const input =
    feature === 'image'
      ? [
          {
            role: 'user',
            content: [
              { type: 'input_text', text },
              { type: 'input_image', image_url: `data:image/png;base64,${PNG}` },
            ],
          },
        ]
      : text;
  return {
    ...base,
    input,
    ...(feature === 'tools' ? { tools: [{ type: 'function', ...TOOL }] } : {}),
  };
}

const PATHS: Readonly<Record<Exclude<Door, 'gemini'>, string>> = {
  native: '/v1/chat',
  openai: '/v1/chat/completions',
  anthropic: '/v1/messages',
  responses: '/v1/responses',
};

/** The door's path: the Gemini door names the model and the method in it. */
function pathOf(door: Door, model: string, stream: boolean): string {
  if (door !== 'gemini') return PATHS[door];
  return `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
}

/** The text and function calls of a Gemini response or chunk. */
function geminiParts(body: any): { text: string; calls: string[] } {
  const parts: any[] = body.candidates?.[0]?.content?.parts ?? [];
  return {
    text: parts
      .filter((part) => typeof part.text === 'string' && part.thought !== true)
      .map((part) => part.text)
      .join(''),
    calls: parts.filter((part) => part.functionCall !== undefined).map((part) => part.functionCall.name),
  };
}

/** The gateway key where each door's clients put it (the Gemini door: `x-goog-api-key`). */
const HEADERS: Readonly<Record<Door, Record<string, string>>> = {
  native: {},
  openai: {},
  anthropic: { 'anthropic-version': '2023-06-01' },
  responses: {},
  gemini: { 'x-goog-api-key': `${APP}:${SECRET}` },
};

/** What the client got: its text, and the names of the tools it was asked to call. */
function readAnswer(door: Door, stream: boolean, text: string): { text: string; calls: string[] } {
  if (!stream) {
    const body = JSON.parse(text);
    if (door === 'native')
      return {
        text: body.message.content ?? '',
        calls: (body.message.toolCalls ?? []).map((c: any) => c.name),
      };
    if (door === 'openai') {
      const message = body.choices[0].message;
      return {
        text: message.content ?? '',
        calls: (message.tool_calls ?? []).map((c: any) => c.function.name),
      };
    }
    if (door === 'gemini') return geminiParts(body);
    if (door === 'anthropic')
      return {
        text: body.content
          .filter((b: any) => b.type === 'text')
          .map((b: any) => b.text)
          .join(''),
        calls: body.content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.name),
      };
    return {
      text: body.output
        .filter((o: any) => o.type === 'message')
        .flatMap((o: any) => o.content.map((c: any) => c.text))
        .join(''),
      calls: body.output.filter((o: any) => o.type === 'function_call').map((o: any) => o.name),
    };
  }
  let answer = '';
  const calls: string[] = [];
  for (const event of sseEvents(text)) {
    const data = event.data as any;
    if (data === null || typeof data !== 'object') continue;
    if (door === 'native') {
      if (event.event === 'delta') answer += data.content ?? '';
      if (event.event === 'tool_call') calls.push(data.name);
    } else if (door === 'openai') {
      const delta = data.choices?.[0]?.delta;
      answer += delta?.content ?? '';
      for (const call of delta?.tool_calls ?? []) if (call.function?.name) calls.push(call.function.name);
    } else if (door === 'gemini') {
      const parts = geminiParts(data);
      answer += parts.text;
      calls.push(...parts.calls);
    } else if (door === 'anthropic') {
      if (data.type === 'content_block_delta' && data.delta.type === 'text_delta') answer += data.delta.text;
      if (data.type === 'content_block_start' && data.content_block.type === 'tool_use')
        calls.push(data.content_block.name);
    } else {
      if (data.type === 'response.output_text.delta') answer += data.delta;
      if (data.type === 'response.output_item.done' && data.item?.type === 'function_call')
        calls.push(data.item.name);
    }
  }
  return { text: answer, calls };
}

/** Server-sent events with their JSON data; `[DONE]` and other non-JSON data left out. */
function sseEvents(body: string): { event: string; data: unknown }[] {
  const events: { event: string; data: unknown }[] = [];
  // Google's SSE ends its lines with CRLF, as the Gemini API does.
  for (const block of body.replaceAll('\r\n', '\n').split('\n\n')) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    try {
      if (data.length > 0) events.push({ event, data: JSON.parse(data.join('\n')) });
    } catch {
      // `[DONE]`
    }
  }
  return events;
}

/** Declares the matrix's cases (inside the caller's describe). */
export function cloudDoorMatrix(
  cloud: CloudUnderTest,
  doors: readonly Door[] = ['native', 'openai', 'anthropic', 'responses', 'gemini'],
): void {
  for (const door of doors) {
    for (const stream of [false, true]) {
      // The native API's messages are text: images come through the vendor doors.
      const features =
        door === 'native' ? (['text', 'tools'] as const) : (['text', 'tools', 'image'] as const);
      for (const feature of features) {
        const name = `${cloud.kind} × ${door} × ${stream ? 'streamed' : 'whole'} × ${feature}`;
        it(name, async () => {
          const answerText = `Hello from ${cloud.kind}.`;
          cloud.replyNext(
            feature === 'tools' ? { text: 'Checking.', toolCalls: [CALL] } : { text: answerText },
          );
          const reply = await cloud
            .gw()
            .post(pathOf(door, cloud.model, stream), bodyOf(door, feature, cloud.model, stream), {
              headers: HEADERS[door],
            });
          assert.equal(reply.status, 200, reply.text.slice(0, 500));
          const answer = readAnswer(door, stream, reply.text);
          const seen = cloud.lastUpstream();
          assert.ok(
            seen.texts.some((text) => text.includes(`(${door}, ${feature})`)),
            JSON.stringify(seen),
          );
          if (feature === 'tools') {
            assert.deepEqual(answer.calls, ['get_weather']);
            assert.deepEqual(seen.tools, ['get_weather']);
          } else assert.equal(answer.text, answerText);
          if (feature === 'image') assert.equal(seen.image, true);
        });
      }
    }
  }
  if (cloud.embedModel === undefined) return;
  const embedModel = cloud.embedModel;
  it(`${cloud.kind} × native × embeddings`, async () => {
    const [provider, model] = embedModel.split('/') as [string, string];
    const reply = await cloud.gw().post('/v1/embed', { provider, model, input: ['alpha', 'beta gamma'] });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.embeddings.length, 2);
  });
  it(`${cloud.kind} × openai × embeddings`, async () => {
    const reply = await cloud
      .gw()
      .post('/v1/embeddings', { model: embedModel, input: ['alpha', 'beta gamma'] });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.data.length, 2);
  });
  it(`${cloud.kind} × gemini × embeddings`, async () => {
    const reply = await cloud.gw().post(
      `/v1beta/models/${embedModel}:batchEmbedContents`,
      {
        requests: ['alpha', 'beta gamma'].map((text) => ({
          model: `models/${embedModel}`,
          content: { parts: [{ text }] },
        })),
      },
      { headers: HEADERS.gemini },
    );
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.embeddings.length, 2);
    assert.ok(reply.body.embeddings.every((embedding: { values: number[] }) => embedding.values.length > 0));
  });
}
