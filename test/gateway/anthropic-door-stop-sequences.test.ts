import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import { anthropicClient, listenForClients } from '../helpers/anthropic-door-client.ts';
import { AUTH, shareGateway } from '../helpers/gateway-harness.ts';
import { type MockAnthropicServer, startMockAnthropic } from '../helpers/mock-anthropic-server.ts';

/**
 * A stop sequence that ends an answer is reported as Anthropic reports it: `stop_reason:
 * stop_sequence` and the sequence that matched, in the Message and in the stream's message_delta
 * (which the SDK's stream helper folds into finalMessage).
 */

const question = { role: 'user' as const, content: 'Count for me.' };
// The simulated slot answers with this text when the request's metadata asks it to.
const REPLY = 'One, two; three ### four. Five.';
const simulated = { simulated: { reply: REPLY } };

function text(message: Anthropic.Message): string {
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

describe('Anthropic door: stop sequences on a simulated slot', () => {
  const gw = shareGateway();
  let client: Anthropic;
  before(async () => {
    client = anthropicClient(await listenForClients(gw));
  });
  const body = {
    model: 'simulated-chat',
    max_tokens: 200,
    messages: [question],
    stop_sequences: ['.', '###', ';'],
    metadata: simulated,
  } as never as Anthropic.MessageCreateParamsNonStreaming;

  it('messages.create: the text ends before the earliest sequence, which is reported', async () => {
    const message = await client.messages.create(body);
    assert.equal(text(message), 'One, two');
    assert.equal(message.stop_reason, 'stop_sequence');
    assert.equal(message.stop_sequence, ';');
  });

  it('the stream helper: the same text, and finalMessage carries the reason and the sequence', async () => {
    const stream = client.messages.stream(body);
    let streamed = '';
    stream.on('text', (delta) => {
      streamed += delta;
    });
    const message = await stream.finalMessage();
    assert.equal(streamed, 'One, two');
    assert.equal(text(message), 'One, two');
    assert.equal(message.stop_reason, 'stop_sequence');
    assert.equal(message.stop_sequence, ';');
  });

  it('a sequence that does not occur: the whole reply, end_turn, stop_sequence null', async () => {
    const message = await client.messages.create({ ...body, stop_sequences: ['never'] });
    assert.equal(text(message), REPLY);
    assert.equal(message.stop_reason, 'end_turn');
    assert.equal(message.stop_sequence, null);
  });

  it('the OpenAI door cuts the same text and, as OpenAI does, reports only finish_reason stop', async () => {
    const request = { model: 'simulated-chat', messages: [question], stop: ['###'], metadata: simulated };
    const res = await gw.gateway.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: AUTH,
      payload: request,
    });
    assert.equal(res.statusCode, 200, res.body);
    const [choice] = res.json().choices;
    assert.equal(choice.message.content, 'One, two; three ');
    assert.equal(choice.finish_reason, 'stop');
    assert.equal(res.body.includes('###'), false);
  });
});

describe('Anthropic door: stop sequences reported by an Anthropic upstream', () => {
  let mock: MockAnthropicServer;
  before(async () => {
    mock = await startMockAnthropic();
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'anthropic', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: 'mock-key' },
  }));
  after(() => mock.close());
  let client: Anthropic;
  before(async () => {
    client = anthropicClient(await listenForClients(gw));
  });
  const body = {
    model: 'provider-a/claude-sonnet-4-5',
    max_tokens: 64,
    messages: [question],
    stop_sequences: ['###'],
  };

  it('messages.create passes stop_reason stop_sequence and the sequence on', async () => {
    mock.replyNext({ text: 'One, two, three ', stopSequence: '###' });
    const message = await client.messages.create(body);
    assert.equal(text(message), 'One, two, three ');
    assert.equal(message.stop_reason, 'stop_sequence');
    assert.equal(message.stop_sequence, '###');
    assert.deepEqual(mock.requests.at(-1)?.body.stop_sequences, ['###']);
  });

  it('streamed: finalMessage carries them too', async () => {
    mock.replyNext({ text: 'One, two, three ', stopSequence: '###' });
    const message = await client.messages.stream(body).finalMessage();
    assert.equal(text(message), 'One, two, three ');
    assert.equal(message.stop_reason, 'stop_sequence');
    assert.equal(message.stop_sequence, '###');
  });
});
