import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { APP, shareGateway, startGateway } from '../helpers/gateway-harness.ts';
import { redSquarePng } from '../helpers/tiny-png.ts';
import { shareVendorSlots } from '../helpers/vendor-slots.ts';

/**
 * The cross-vendor lane of CONTRACT 5.2, door × slot kind: a PNG, a PDF, thinking and cache_control
 * sent through the Anthropic door and through the OpenAI door, and what each vendor's recording
 * mock received: the image and the PDF in that vendor's format, thinking as its reasoning setting,
 * no cache_control anywhere but on Anthropic, a prompt_cache_key per app and session on OpenAI.
 */

const PNG = redSquarePng(4).toString('base64');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <</Type /Page>> endobj\n%%EOF').toString('base64');
const PNG_URL = `data:image/png;base64,${PNG}`;
const PDF_URL = `data:application/pdf;base64,${PDF}`;

/** An Anthropic-door body: system blocks and a user turn with markers, an image, a PDF; thinking on. */
function messagesBody(model: string): Record<string, unknown> {
  return {
    model,
    max_tokens: 32000,
    thinking: { type: 'enabled', budget_tokens: 31999 },
    system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare these.', cache_control: { type: 'ephemeral', ttl: '1h' } },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          {
            type: 'document',
            title: 'spec.pdf',
            source: { type: 'base64', media_type: 'application/pdf', data: PDF },
            cache_control: { type: 'ephemeral' },
          },
        ],
      },
    ],
  };
}

/** The same on the OpenAI door: image_url with a data URL, file with file_data, reasoning_effort. */
function completionBody(model: string): Record<string, unknown> {
  return {
    model,
    max_tokens: 32000,
    reasoning_effort: 'high',
    messages: [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare these.' },
          { type: 'image_url', image_url: { url: PNG_URL } },
          { type: 'file', file: { file_data: PDF_URL, filename: 'spec.pdf' } },
        ],
      },
    ],
  };
}

const ANTHROPIC_HEADERS = { 'anthropic-version': '2023-06-01' };

describe('images, PDFs, thinking and cache_control across vendors', () => {
  const slots = shareVendorSlots();
  const gw = slots.gw;

  function lastOpenAIBody(): Record<string, any> {
    const request = slots.openai.requests.at(-1);
    assert.ok(request !== undefined);
    assert.doesNotMatch(request.raw.toString(), /cache_control/);
    return request.body as Record<string, any>;
  }

  function assertOpenAIMedia(body: Record<string, any>): void {
    assert.deepEqual(body.messages, [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare these.' },
          { type: 'image_url', image_url: { url: PNG_URL } },
          { type: 'file', file: { file_data: PDF_URL, filename: 'spec.pdf' } },
        ],
      },
    ]);
    assert.equal(body.reasoning_effort, 'high');
    assert.match(body.prompt_cache_key, /^gw-[0-9a-f]{40}$/);
  }

  function lastGeminiBody(): Record<string, any> {
    const request = slots.gemini.requests.at(-1);
    assert.ok(request !== undefined);
    assert.doesNotMatch(JSON.stringify(request.body), /cache_control|cacheControl/);
    return request.body;
  }

  function assertGeminiMedia(body: Record<string, any>): void {
    assert.deepEqual(body.systemInstruction, { parts: [{ text: 'Be brief.' }] });
    assert.deepEqual(body.contents, [
      {
        role: 'user',
        parts: [
          { text: 'Compare these.' },
          { inlineData: { mimeType: 'image/png', data: PNG } },
          { inlineData: { mimeType: 'application/pdf', data: PDF } },
        ],
      },
    ]);
    assert.deepEqual(body.generationConfig.thinkingConfig, { thinkingBudget: 24576 });
  }

  it('Anthropic door → OpenAI slot: image_url and file parts, reasoning_effort high, no cache_control', async () => {
    const reply = await gw.post('/v1/messages', messagesBody('provider-a/gpt-5-mini'), {
      headers: ANTHROPIC_HEADERS,
    });
    assert.equal(reply.status, 200, reply.text);
    assertOpenAIMedia(lastOpenAIBody());
  });

  it('OpenAI door → OpenAI slot: the same parts as given', async () => {
    const reply = await gw.post('/v1/chat/completions', completionBody('provider-a/gpt-5-mini'));
    assert.equal(reply.status, 200, reply.text);
    assertOpenAIMedia(lastOpenAIBody());
  });

  it('Anthropic door → Gemini slot: inlineData for both, thinkingBudget 24576, no cache_control', async () => {
    const reply = await gw.post('/v1/messages', messagesBody('provider-b/gemini-2.5-flash'), {
      headers: ANTHROPIC_HEADERS,
    });
    assert.equal(reply.status, 200, reply.text);
    assertGeminiMedia(lastGeminiBody());
  });

  it('OpenAI door → Gemini slot: the same', async () => {
    const reply = await gw.post('/v1/chat/completions', completionBody('provider-b/gemini-2.5-flash'));
    assert.equal(reply.status, 200, reply.text);
    assertGeminiMedia(lastGeminiBody());
  });

  it('OpenAI door → Anthropic slot: image and document blocks, thinking with the effort budget', async () => {
    slots.anthropic.replyNext({ text: 'Both are red.' });
    const reply = await gw.post('/v1/chat/completions', completionBody('provider-c/claude-sonnet-4-5'));
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.choices[0].message.content, 'Both are red.');
    const sent = slots.anthropic.requests.at(-1)?.body as Record<string, any>;
    assert.equal(sent.system, 'Be brief.');
    assert.deepEqual(sent.messages, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare these.' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: PDF },
            title: 'spec.pdf',
          },
        ],
      },
    ]);
    assert.deepEqual(sent.thinking, { type: 'enabled', budget_tokens: 24576 });
    assert.equal(sent.temperature, undefined);
  });

  it("a tool result's image: after the tool messages on OpenAI, beside the functionResponse on Gemini", async () => {
    const body = (model: string) => ({
      model,
      max_tokens: 1000,
      messages: [
        { role: 'user', content: 'Read a.png' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Reading it.', signature: 'c2lnbmF0dXJl' },
            { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'a.png' } },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }],
            },
          ],
        },
      ],
      tools: [
        { name: 'Read', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } },
      ],
    });
    const toOpenAI = await gw.post('/v1/messages', body('provider-a/gpt-5-mini'), {
      headers: ANTHROPIC_HEADERS,
    });
    assert.equal(toOpenAI.status, 200, toOpenAI.text);
    const sent = lastOpenAIBody();
    // The thinking block (Anthropic's signature) is left out; the image follows the tool message.
    assert.doesNotMatch(JSON.stringify(sent), /Reading it|c2lnbmF0dXJl/);
    assert.deepEqual(sent.messages.slice(2), [
      { role: 'tool', tool_call_id: 'toolu_1', content: '' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The result of tool call toolu_1 holds:' },
          { type: 'image_url', image_url: { url: PNG_URL } },
        ],
      },
    ]);

    const toGemini = await gw.post('/v1/messages', body('provider-b/gemini-2.5-flash'), {
      headers: ANTHROPIC_HEADERS,
    });
    assert.equal(toGemini.status, 200, toGemini.text);
    const contents = lastGeminiBody().contents as { role: string; parts: Record<string, unknown>[] }[];
    assert.doesNotMatch(JSON.stringify(contents), /Reading it|c2lnbmF0dXJl/);
    const last = contents.at(-1);
    assert.equal(last?.role, 'user');
    assert.ok(last?.parts[0]?.functionResponse !== undefined);
    assert.deepEqual(last?.parts[1], { inlineData: { mimeType: 'image/png', data: PNG } });
  });

  it('prompt_cache_key: one per app and session, another without a session', async () => {
    const ask = async (headers: Record<string, string>) => {
      const reply = await gw.post('/v1/chat/completions', completionBody('provider-a/gpt-5-mini'), {
        headers,
      });
      assert.equal(reply.status, 200, reply.text);
      return lastOpenAIBody().prompt_cache_key as string;
    };
    const first = await ask({ 'x-claude-code-session-id': 'session-1' });
    assert.equal(await ask({ 'x-claude-code-session-id': 'session-1' }), first);
    assert.notEqual(await ask({ 'x-claude-code-session-id': 'session-2' }), first);
    const none = await ask({});
    assert.equal(await ask({}), none);
    assert.notEqual(none, first);
    assert.ok(!first.includes('session-1'));
  });

  it('a model without reasoning (gpt-4o) gets no reasoning_effort', async () => {
    const reply = await gw.post('/v1/chat/completions', completionBody('provider-a/gpt-4o-mini'));
    assert.equal(reply.status, 200, reply.text);
    assert.equal(lastOpenAIBody().reasoning_effort, undefined);
  });
});

describe('media in the limits', () => {
  it("an image's tokens count in the reservation: a small prompt with a large image passes no 1,000-token limit", async (t) => {
    const gw = await startGateway(t, { file: { limits: { apps: { [APP]: { tokensPerMinute: 1000 } } } } });
    const ask = (content: unknown[]) =>
      gw.post('/v1/chat/completions', {
        model: 'simulated-chat',
        max_tokens: 10,
        messages: [{ role: 'user', content }],
      });
    const text = { type: 'text', text: 'What is this?' };
    const small = await ask([
      text,
      {
        type: 'image_url',
        image_url: { url: `data:image/png;base64,${redSquarePng(20).toString('base64')}` },
      },
    ]);
    assert.equal(small.status, 200, small.text);
    // 1,200 × 1,200 pixels: 1,600 tokens, refused before any upstream is called.
    const large = await ask([
      text,
      {
        type: 'image_url',
        image_url: { url: `data:image/png;base64,${redSquarePng(1200).toString('base64')}` },
      },
    ]);
    assert.equal(large.status, 429, large.text);
    assert.match(large.body.error.message, /tokens per minute/);
  });
});

describe('media on the simulated provider', () => {
  const gw = shareGateway();
  const png = redSquarePng(300).toString('base64');
  const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } };

  it('count_tokens and the usage of an answer both count an image as 300 × 300 / 750 tokens', async () => {
    const count = async (content: unknown[]) => {
      const reply = await gw.post(
        '/v1/messages/count_tokens',
        { model: 'simulated-chat', messages: [{ role: 'user', content }] },
        { headers: ANTHROPIC_HEADERS },
      );
      assert.equal(reply.status, 200, reply.text);
      return reply.body.input_tokens as number;
    };
    const text = { type: 'text', text: 'What is this?' };
    assert.equal((await count([text, image])) - (await count([text])), 120);
    const answer = await gw.post(
      '/v1/messages',
      { model: 'simulated-chat', max_tokens: 20, messages: [{ role: 'user', content: [text, image] }] },
      { headers: ANTHROPIC_HEADERS },
    );
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.usage.input_tokens, await count([text, image]));
  });

  it("the native API's messages stay text: a parts field is refused as any unknown field", async () => {
    const reply = await gw.chat({
      messages: [
        {
          role: 'user',
          content: 'hi',
          parts: [{ type: 'image', source: { kind: 'url', url: 'https://a.test/x.png' } }],
        },
      ],
    });
    assert.equal(reply.status, 400, reply.text);
    assert.match(reply.text, /parts/);
  });

  it('a streamed answer with an image and a PDF on the OpenAI door', async () => {
    const reply = await gw.post('/v1/chat/completions', {
      ...completionBody('simulated-chat'),
      stream: true,
      stream_options: { include_usage: true },
    });
    assert.equal(reply.status, 200, reply.text);
    const usage = reply.text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)))
      .find((chunk) => chunk.usage != null)?.usage;
    // A 4 × 4 image is 1 token; the one-page PDF 3,000.
    assert.ok(usage.prompt_tokens > 3000, JSON.stringify(usage));
  });
});

describe('media in the response cache', () => {
  const gw = shareGateway();

  it('two requests that differ only in their image are two entries', async () => {
    const ask = (size: number) =>
      gw.post(
        '/v1/chat/completions',
        {
          model: 'simulated-chat',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'What is this?' },
                {
                  type: 'image_url',
                  image_url: { url: `data:image/png;base64,${redSquarePng(size).toString('base64')}` },
                },
              ],
            },
          ],
        },
        { headers: { 'x-gateway-cache': 'use' } },
      );
    assert.equal((await ask(3)).headers['x-gateway-cache'], 'miss');
    assert.equal((await ask(5)).headers['x-gateway-cache'], 'miss');
    assert.equal((await ask(3)).headers['x-gateway-cache'], 'hit');
  });
});
