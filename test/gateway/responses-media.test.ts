import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { APP, SECRET } from '../helpers/gateway-harness.ts';
import { redSquarePng } from '../helpers/tiny-png.ts';
import { shareVendorSlots } from '../helpers/vendor-slots.ts';

/**
 * Images, PDFs and the reasoning effort through the Responses door (CONTRACT 5.4, 5.2, 5.9), on
 * the content-part model every door shares: `input_image` and `input_file` parts and
 * `reasoning.effort` reach each vendor's recording mock in that vendor's form.
 */

const PNG = redSquarePng(4).toString('base64');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <</Type /Page>> endobj\n%%EOF').toString('base64');
const bearer = { auth: false, headers: { authorization: `Bearer ${APP}:${SECRET}` } };

function mediaBody(model: string, effort: string): Record<string, unknown> {
  return {
    model,
    instructions: 'Be brief.',
    reasoning: { effort },
    // Room for Anthropic's thinking budget, which must stay under max_tokens.
    max_output_tokens: 16_000,
    input: [
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'Compare these.' },
          { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'low' },
          { type: 'input_file', filename: 'spec.pdf', file_data: `data:application/pdf;base64,${PDF}` },
        ],
      },
    ],
  };
}

describe('the Responses door carries images, PDFs and the reasoning effort', () => {
  const slots = shareVendorSlots();
  const gw = slots.gw;

  it('OpenAI slot: image_url and file parts, reasoning_effort (xhigh is high)', async () => {
    slots.openai.replyNext({ text: 'Both are red.' });
    const reply = await gw.post('/v1/responses', mediaBody('provider-a/gpt-5', 'xhigh'), bearer);
    assert.equal(reply.status, 200, reply.text);
    const sent = slots.openai.requests.at(-1)?.body as Record<string, any>;
    assert.deepEqual(sent['messages'][1].content, [
      { type: 'text', text: 'Compare these.' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}`, detail: 'low' } },
      { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'spec.pdf' } },
    ]);
    assert.equal(sent['reasoning_effort'], 'high');
  });

  it('Anthropic slot: image and document blocks, thinking with the medium budget', async () => {
    slots.anthropic.replyNext({ text: 'Both are red.' });
    const reply = await gw.post('/v1/responses', mediaBody('provider-c/claude-sonnet-4-5', 'medium'), bearer);
    assert.equal(reply.status, 200, reply.text);
    const sent = slots.anthropic.requests.at(-1)?.body as Record<string, any>;
    assert.deepEqual(sent['messages'][0].content.slice(1), [
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: PDF },
        title: 'spec.pdf',
      },
    ]);
    assert.deepEqual(sent['thinking'], { type: 'enabled', budget_tokens: 8192 });
  });

  it('Gemini slot: inlineData for both, thinkingBudget for low (minimal is low)', async () => {
    slots.gemini.replyNext({ text: 'Both are red.' });
    const reply = await gw.post('/v1/responses', mediaBody('provider-b/gemini-2.5-flash', 'minimal'), bearer);
    assert.equal(reply.status, 200, reply.text);
    const sent = slots.gemini.requests.at(-1)?.body as Record<string, any>;
    const parts = sent['contents'][0].parts;
    assert.deepEqual(parts.slice(1), [
      { inlineData: { mimeType: 'image/png', data: PNG } },
      { inlineData: { mimeType: 'application/pdf', data: PDF } },
    ]);
    assert.deepEqual(sent['generationConfig'].thinkingConfig, { thinkingBudget: 2048 });
  });

  it("effort none asks for no reasoning, and a tool output's image reaches the upstream", async () => {
    slots.openai.replyNext({ text: 'A red square.' });
    const reply = await gw.post(
      '/v1/responses',
      {
        model: 'provider-a/gpt-5',
        reasoning: { effort: 'none' },
        tools: [{ type: 'function', name: 'screenshot', parameters: { type: 'object', properties: {} } }],
        input: [
          { role: 'user', content: 'What is on screen?' },
          { type: 'function_call', call_id: 'c1', name: 'screenshot', arguments: '{}' },
          {
            type: 'function_call_output',
            call_id: 'c1',
            output: [{ type: 'input_image', image_url: `data:image/png;base64,${PNG}` }],
          },
        ],
      },
      bearer,
    );
    assert.equal(reply.status, 200, reply.text);
    const sent = slots.openai.requests.at(-1)?.body as Record<string, any>;
    assert.equal(sent['reasoning_effort'], undefined);
    assert.match(JSON.stringify(sent['messages']), new RegExp(`data:image/png;base64,${PNG.slice(0, 20)}`));
  });
});
